const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

/**
 * The service assigns UUID v4 ids, so anything else is unknown without asking the store (and a
 * path segment too long for a table key would otherwise reach it).
 */
export function isServiceId(id: string): boolean {
  return UUID_V4.test(id);
}
