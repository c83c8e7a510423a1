/**
 * A refused TLS handshake reads the same in GET …/deliveries whichever Node (and OpenSSL) the
 * deliver function runs on: the alert is found in the error's code or in OpenSSL's message, as
 * Node 20 and Node 24 word it when the alert arrives while the request is being written.
 */
import { describe, expect, it } from 'vitest';
import { describeTlsError } from '../../lib/tls/client-tls';

const eproto = (message: string) => Object.assign(new Error(message), { code: 'EPROTO' });

describe('describeTlsError', () => {
  it.each([
    [
      "Node 20's OpenSSL",
      'write EPROTO 40:error:0A000410:SSL routines:ssl3_read_bytes:sslv3 alert handshake failure:../deps/openssl/openssl/ssl/record/rec_layer_s3.c:1605:SSL alert number 40',
    ],
    [
      "Node 24's OpenSSL",
      'write EPROTO 40DD611E1A7F0000:error:0A000410:SSL routines:ssl3_read_bytes:ssl/tls alert handshake failure:../deps/openssl/openssl/ssl/record/rec_layer_s3.c:918:SSL alert number 40',
    ],
  ])('reads a handshake failure alert in %s message', (_, message) => {
    expect(describeTlsError(eproto(message))).toMatch(
      /^tls: handshake failure \(the endpoint refused the handshake/,
    );
  });

  it('reads an alert named in the code', () => {
    const error = Object.assign(new Error('alert'), { code: 'ERR_SSL_TLSV13_ALERT_CERTIFICATE_REQUIRED' });
    expect(describeTlsError(error)).toBe(
      'tls: certificate required (the endpoint refused the handshake: it requires a client certificate and the service has none configured)',
    );
  });

  it('leaves an error that is not TLS to the caller', () => {
    expect(describeTlsError(Object.assign(new Error('refused'), { code: 'ECONNREFUSED' }))).toBeUndefined();
  });
});
