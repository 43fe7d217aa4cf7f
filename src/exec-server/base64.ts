/**
 * Strict standard base64 (padding required), as the real server decodes `process/write` chunks: what node's lenient
 * decoder would silently skip is an error, in the words the real server uses (`Invalid symbol 33, offset 0.`).
 */

const ALPHABET = /[A-Za-z0-9+/]/;

/** Decodes `text`, or throws an Error whose message is the real server's -32602 text. */
export function decodeBase64Strict(text: string): Buffer {
  const padStart = text.indexOf('=');
  const body = padStart < 0 ? text : text.slice(0, padStart);
  for (let i = 0; i < body.length; i++) {
    if (!ALPHABET.test(body[i]!)) throw new Error(`Invalid symbol ${body.charCodeAt(i)}, offset ${i}.`);
  }
  if (padStart >= 0) {
    const pad = text.slice(padStart);
    if (!/^={1,2}$/.test(pad) || text.length % 4 !== 0) throw new Error('Invalid padding');
  } else if (text.length % 4 === 1) {
    throw new Error(`Invalid input length: ${text.length}`);
  } else if (text.length % 4 !== 0) {
    throw new Error('Invalid padding');
  }
  return Buffer.from(text, 'base64');
}
