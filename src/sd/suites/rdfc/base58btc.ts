/**
 * Base58 with the Bitcoin alphabet (multibase 'z'), the encoding of did:key identifiers and of
 * the eddsa-rdfc-2022 / ecdsa-rdfc-2019 proof values. Written out here rather than borrowed from a
 * transitive dependency, so the did:key code below names every byte it reads: a leading zero byte
 * is a leading '1', and decoding refuses any character outside the alphabet.
 */

const ALPHABET = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';
const VALUES: ReadonlyMap<string, number> = new Map([...ALPHABET].map((character, value) => [character, value]));

/** The base58btc text of `bytes` (no multibase prefix). */
export function encodeBase58(bytes: Uint8Array): string {
  let zeros = 0;
  while (zeros < bytes.length && bytes[zeros] === 0) zeros++;
  // Base-58 digits, least significant first, of the number the bytes write (big-endian).
  const digits: number[] = [];
  for (let i = zeros; i < bytes.length; i++) {
    let carry = bytes[i]!;
    for (let j = 0; j < digits.length; j++) {
      carry += digits[j]! * 256;
      digits[j] = carry % 58;
      carry = Math.floor(carry / 58);
    }
    while (carry > 0) {
      digits.push(carry % 58);
      carry = Math.floor(carry / 58);
    }
  }
  return '1'.repeat(zeros) + digits.reverse().map((digit) => ALPHABET[digit]).join('');
}

/** The bytes of a base58btc text (no multibase prefix), or undefined when a character is not base58. */
export function decodeBase58(text: string): Uint8Array | undefined {
  let zeros = 0;
  while (zeros < text.length && text[zeros] === '1') zeros++;
  // Bytes, least significant first.
  const bytes: number[] = [];
  for (let i = zeros; i < text.length; i++) {
    const value = VALUES.get(text[i]!);
    if (value === undefined) return undefined;
    let carry = value;
    for (let j = 0; j < bytes.length; j++) {
      carry += bytes[j]! * 58;
      bytes[j] = carry & 0xff;
      carry >>= 8;
    }
    while (carry > 0) {
      bytes.push(carry & 0xff);
      carry >>= 8;
    }
  }
  return Uint8Array.from([...new Array<number>(zeros).fill(0), ...bytes.reverse()]);
}
