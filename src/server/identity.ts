/**
 * Proof that the server answering on server.json's port is the one that wrote server.json. A pid can be
 * reused after a crash and a port taken by any program: before a client sends its token (or stops a pid),
 * it sends a fresh random challenge on `GET /health`, and only the server that holds the file's secret
 * `instance` can answer it with the right HMAC. The instance itself is never sent.
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/** The request header carrying the client's challenge. */
export const CHALLENGE_HEADER = 'x-projdex-challenge';

/** A challenge a server answers: 16 to 128 base64url characters. */
export const isChallenge = (value: unknown): value is string =>
  typeof value === 'string' && /^[A-Za-z0-9_-]{16,128}$/.test(value);

/** The answer to `challenge` from the server whose instance is `instance`. */
export function proofOf(instance: string, challenge: string): string {
  return createHmac('sha256', instance).update(challenge).digest('base64url');
}

/** A fresh challenge (32 random bytes). */
export const newChallenge = (): string => randomBytes(32).toString('base64url');

/** Whether `proof` answers `challenge` for `instance` (constant-time). */
export function provesInstance(instance: string, challenge: string, proof: unknown): boolean {
  if (typeof proof !== 'string') return false;
  const expected = Buffer.from(proofOf(instance, challenge));
  const given = Buffer.from(proof);
  return given.length === expected.length && timingSafeEqual(given, expected);
}
