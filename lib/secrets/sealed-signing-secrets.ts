import type { SigningSecrets } from '../domain/signing-secret';
import type { SecretBox } from './secret-box';

/**
 * A subscription's signing secrets as a store keeps them: each sealed with the subscription's id as
 * context (`signingSecret`, `previousSigningSecret`, the latter empty or absent when there is none)
 * beside `previousSecretUntil` (epoch ms).
 */
export interface SealedSigningSecrets {
  readonly signingSecret?: unknown;
  readonly previousSigningSecret?: unknown;
  readonly previousSecretUntil?: unknown;
}

/** The secrets opened, or undefined for a subscription made before secrets existed. */
export async function openSigningSecrets(
  box: SecretBox,
  id: string,
  sealed: SealedSigningSecrets,
): Promise<SigningSecrets | undefined> {
  if (typeof sealed.signingSecret !== 'string') return undefined;
  const previous = sealed.previousSigningSecret ? String(sealed.previousSigningSecret) : undefined;
  const [current, previousSecret] = await Promise.all([
    box.open(sealed.signingSecret, id),
    previous === undefined ? undefined : box.open(previous, id),
  ]);
  return {
    current,
    ...(previousSecret === undefined
      ? {}
      : { previous: previousSecret, previousUntil: Number(sealed.previousSecretUntil) }),
  };
}
