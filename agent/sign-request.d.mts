export function requestSigner(options: {
  region: string;
  credentials?: { accessKeyId: string; secretAccessKey: string; sessionToken?: string };
}): (request: {
  method: string;
  url: string;
  headers?: Record<string, string>;
  body?: string;
}) => Promise<Record<string, string>>;
