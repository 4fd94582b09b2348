/**
 * SHA-256 in plain JavaScript, synchronous, that allocates nothing but its hex answer: the UTF-8
 * bytes are encoded into one buffer this module keeps, and the message schedule lives in another.
 * The browser console hashes with it (it has no `node:crypto`), and so does the Worker for short
 * texts such as an event's chain digest (log/hash.ts; docs/design.md#3-storage says why).
 * Same lowercase hex as `node:crypto` for the same text; a lone surrogate is encoded as U+FFFD
 * by both.
 */
const K = new Int32Array([
  0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5, 0xd807aa98,
  0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786,
  0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da, 0x983e5152, 0xa831c66d, 0xb00327c8,
  0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13,
  0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819,
  0xd6990624, 0xf40e3585, 0x106aa070, 0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a,
  0x5b9cca4f, 0x682e6ff3, 0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7,
  0xc67178f2,
]);

const encoder = new TextEncoder();
/** The padded message: grown to the longest text hashed so far, up to KEPT bytes. */
let bytes = new Uint8Array(4096);
/** A longer text (the browser verifying a large event) is encoded into a buffer used once. */
const KEPT = 64 * 1024;
const w = new Int32Array(64);
/** The answer's 64 hex digits as char codes, turned into one string at the end. */
const out: number[] = new Array(64).fill(0);
const DIGITS = Array.from("0123456789abcdef", (c) => c.charCodeAt(0));

function put(at: number, v: number) {
  for (let j = 0; j < 8; j++) out[at + j] = DIGITS[(v >>> (28 - 4 * j)) & 15] as number;
}

/** A buffer with room for `units` UTF-16 units (3 bytes each at most) and the padding. */
function room(units: number): Uint8Array {
  const need = units * 3 + 72;
  if (need <= bytes.length) return bytes;
  if (need > KEPT) return new Uint8Array(need);
  bytes = new Uint8Array(Math.min(KEPT, Math.max(need, bytes.length * 2)));
  return bytes;
}

/** Lowercase hex SHA-256 of the UTF-8 encoding of `text`. */
export function sha256Text(text: string): string {
  const b = room(text.length);
  return digestOf(b, encoder.encodeInto(text, b).written);
}

/**
 * `sha256Text(first + "\n" + second)`, without building that string: the chain digest of an
 * event is the hash of the previous digest, a newline and the event's canonical JSON.
 */
export function sha256Lines(first: string, second: string): string {
  const b = room(first.length + 1 + second.length);
  const n = encoder.encodeInto(first, b).written;
  b[n] = 0x0a;
  return digestOf(b, n + 1 + encoder.encodeInto(second, b.subarray(n + 1)).written);
}

/** The digest of the first `length` bytes of `b` (padded in place). */
function digestOf(b: Uint8Array, length: number): string {
  const total = ((length + 9 + 63) >> 6) << 6;
  b[length] = 0x80;
  b.fill(0, length + 1, total - 8);
  // The length in bits, big-endian, in the last 8 bytes (texts here stay far below 2^53 bits).
  const high = Math.floor(length / 0x20000000);
  const low = (length * 8) >>> 0;
  b[total - 8] = high >>> 24;
  b[total - 7] = high >>> 16;
  b[total - 6] = high >>> 8;
  b[total - 5] = high;
  b[total - 4] = low >>> 24;
  b[total - 3] = low >>> 16;
  b[total - 2] = low >>> 8;
  b[total - 1] = low;
  let h0 = 0x6a09e667 | 0;
  let h1 = 0xbb67ae85 | 0;
  let h2 = 0x3c6ef372 | 0;
  let h3 = 0xa54ff53a | 0;
  let h4 = 0x510e527f | 0;
  let h5 = 0x9b05688c | 0;
  let h6 = 0x1f83d9ab | 0;
  let h7 = 0x5be0cd19 | 0;
  for (let off = 0; off < total; off += 64) {
    for (let i = 0; i < 16; i++) {
      const j = off + i * 4;
      w[i] =
        ((b[j] as number) << 24) | ((b[j + 1] as number) << 16) | ((b[j + 2] as number) << 8) | (b[j + 3] as number);
    }
    for (let i = 16; i < 64; i++) {
      const x = w[i - 15] as number;
      const y = w[i - 2] as number;
      const s0 = ((x >>> 7) | (x << 25)) ^ ((x >>> 18) | (x << 14)) ^ (x >>> 3);
      const s1 = ((y >>> 17) | (y << 15)) ^ ((y >>> 19) | (y << 13)) ^ (y >>> 10);
      w[i] = ((w[i - 16] as number) + s0 + (w[i - 7] as number) + s1) | 0;
    }
    let a = h0;
    let c1 = h1;
    let c2 = h2;
    let d = h3;
    let e = h4;
    let f = h5;
    let g = h6;
    let h = h7;
    for (let i = 0; i < 64; i++) {
      const S1 = ((e >>> 6) | (e << 26)) ^ ((e >>> 11) | (e << 21)) ^ ((e >>> 25) | (e << 7));
      const ch = (e & f) ^ (~e & g);
      const t1 = (h + S1 + ch + (K[i] as number) + (w[i] as number)) | 0;
      const S0 = ((a >>> 2) | (a << 30)) ^ ((a >>> 13) | (a << 19)) ^ ((a >>> 22) | (a << 10));
      const maj = (a & c1) ^ (a & c2) ^ (c1 & c2);
      h = g;
      g = f;
      f = e;
      e = (d + t1) | 0;
      d = c2;
      c2 = c1;
      c1 = a;
      a = (t1 + S0 + maj) | 0;
    }
    h0 = (h0 + a) | 0;
    h1 = (h1 + c1) | 0;
    h2 = (h2 + c2) | 0;
    h3 = (h3 + d) | 0;
    h4 = (h4 + e) | 0;
    h5 = (h5 + f) | 0;
    h6 = (h6 + g) | 0;
    h7 = (h7 + h) | 0;
  }
  put(0, h0);
  put(8, h1);
  put(16, h2);
  put(24, h3);
  put(32, h4);
  put(40, h5);
  put(48, h6);
  put(56, h7);
  return String.fromCharCode.apply(null, out);
}
