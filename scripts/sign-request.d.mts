export function signRequest(
  request: { method: string; url: string; headers?: Record<string, string>; body?: string },
  options: {
    region: string;
    credentials?: { accessKeyId: string; secretAccessKey: string; sessionToken?: string };
  },
): Promise<Record<string, string>>;
