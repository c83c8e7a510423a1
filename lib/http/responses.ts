import type { APIGatewayProxyStructuredResultV2 } from 'aws-lambda';

export type HttpResponse = APIGatewayProxyStructuredResultV2;

export function json(statusCode: number, body: unknown, headers: Record<string, string> = {}): HttpResponse {
  return {
    statusCode,
    headers: { 'Content-Type': 'application/json', ...headers },
    body: JSON.stringify(body),
  };
}

export function noContent(): HttpResponse {
  return { statusCode: 204, headers: {}, body: '' };
}

export function text(statusCode: number, body: string, headers: Record<string, string> = {}): HttpResponse {
  return { statusCode, headers: { 'Content-Type': 'text/plain; charset=utf-8', ...headers }, body };
}

/** The header `GET …/health` names the running release in (docs/api.md); its body stays `OK`. */
export const SERVICE_VERSION_HEADER = 'X-Service-Version';
