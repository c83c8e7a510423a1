import { BadRequestError } from '../errors';

const MAX_LENGTH = 2048;

/** Validates a callback URI: absolute http(s) with a host, no user info, no fragment, no spaces. */
export function validateEndpointUri(raw: unknown, member = 'EndpointUri'): URL {
  if (typeof raw !== 'string' || raw.length === 0) {
    throw new BadRequestError(`${member} is required and must be a non-empty string`);
  }
  if (raw.length > MAX_LENGTH) {
    throw new BadRequestError(`${member} is longer than ${MAX_LENGTH} characters`);
  }
  // The URL parser silently strips surrounding whitespace and control characters; refuse them instead.
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are exactly what is refused
  if (/[\s\u0000-\u001f\u007f-\u009f]/.test(raw)) {
    throw new BadRequestError(`${member} must not contain spaces or control characters`);
  }
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new BadRequestError(
      `${member} "${raw}" is not an absolute URI, e.g. https://consumer.example.com/events`,
    );
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new BadRequestError(`${member} must use http or https, not "${url.protocol.slice(0, -1)}"`);
  }
  if (!/^https?:\/\/[^/]/i.test(raw) || url.hostname === '') {
    throw new BadRequestError(`${member} must name a host, e.g. https://consumer.example.com/events`);
  }
  const authority = raw.slice(raw.indexOf('//') + 2).split(/[/?#]/, 1)[0] ?? '';
  if (authority.includes('@')) {
    throw new BadRequestError(`${member} must not carry user information`);
  }
  if (raw.includes('#')) {
    throw new BadRequestError(`${member} must not carry a fragment (#...)`);
  }
  return url;
}
