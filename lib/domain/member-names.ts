import { BadRequestError } from '../errors';

/**
 * The O-RAN members are case-sensitive (`EndpointUri`, not `endpointUri`). A member spelled with
 * other case would otherwise be ignored and the request refused as if the member were missing,
 * which sends the client looking in the wrong place: name the spelling instead.
 */
export function requireExactMemberNames(
  input: Record<string, unknown>,
  members: readonly string[],
  /** Where `input` sits in the body, e.g. `data.values[0].`; empty at the top. */
  at = '',
): void {
  for (const key of Object.keys(input)) {
    if (members.includes(key)) continue;
    const meant = members.find((member) => member.toLowerCase() === key.toLowerCase());
    if (meant !== undefined) {
      throw new BadRequestError(
        `member names are case-sensitive: "${at}${key}" must be written ${at}${meant}`,
      );
    }
  }
}
