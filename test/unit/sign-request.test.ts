/** The SigV4 signer npm run smoke uses (agent/sign-request.ts), with fixed credentials. */
import { describe, expect, it } from 'vitest';
import { requestSigner } from '../../agent/sign-request';

const credentials = {
  accessKeyId: 'AKIDEXAMPLE',
  secretAccessKey: 'wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY',
};
const url =
  'https://abc123.execute-api.eu-west-1.amazonaws.com/api/ocloudNotifications/v2/publishers?limit=2';

describe('requestSigner', () => {
  it('signs for execute-api in the region, covering the host, and keeps the given headers', async () => {
    const headers = await requestSigner({ region: 'eu-west-1', credentials })({
      method: 'POST',
      url,
      headers: { 'content-type': 'application/json' },
      body: '{}',
    });
    expect(headers['content-type']).toBe('application/json');
    expect(headers.host).toBe('abc123.execute-api.eu-west-1.amazonaws.com');
    expect(headers.authorization).toMatch(
      /^AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE\/\d{8}\/eu-west-1\/execute-api\/aws4_request, SignedHeaders=[a-z0-9;-]*host[a-z0-9;-]*, Signature=[0-9a-f]{64}$/,
    );
    expect(headers['x-amz-date']).toMatch(/^\d{8}T\d{6}Z$/);
  });

  it('signs the body and the query: a different one gives a different signature', async () => {
    const signer = requestSigner({ region: 'eu-west-1', credentials });
    const sign = (body: string, target = url) =>
      signer({ method: 'POST', url: target, body }).then((h) => h.authorization?.split('Signature=')[1]);
    const [a, b, c] = await Promise.all([
      sign('{}'),
      sign('{"x":1}'),
      sign('{}', url.replace('limit=2', 'limit=3')),
    ]);
    expect(a).not.toBe(b);
    expect(a).not.toBe(c);
  });
});
