import { describe, expect, it } from "vitest";
import { canonical } from "../../../src/log";
import { prng } from "../support/fixtures";

// The oracle: canonical() of the independent export verifier (test/e2e/harness/verify-export.mjs,
// which imports nothing from src/), copied verbatim. Whatever the runtime hashes, that tool must hash the same way.
// biome-ignore lint/suspicious/noExplicitAny: copied oracle, untyped on purpose
const oracle = (v: any): string => {
  if (v === null || typeof v !== "object") return JSON.stringify(v);
  if (Array.isArray(v)) return `[${v.map(oracle).join(",")}]`;
  return `{${Object.keys(v)
    .filter((k) => v[k] !== undefined)
    .sort()
    .map((k) => `${JSON.stringify(k)}:${oracle(v[k])}`)
    .join(",")}}`;
};

describe("canonical: key order", () => {
  const cases: [string, unknown, string][] = [
    ["keys sorted", { b: 1, a: 2, c: 3 }, '{"a":2,"b":1,"c":3}'],
    // Object.keys lists integer-like keys first, numerically; canonical order is string order.
    [
      "numeric-like keys in string order",
      { 2: "two", 10: "ten", a: "a", 1: "one" },
      '{"1":"one","10":"ten","2":"two","a":"a"}',
    ],
    ["upper case before lower case", { a: 1, B: 2, _: 3 }, '{"B":2,"_":3,"a":1}'],
    ["non-ASCII after ASCII", { é: 1, z: 2, Z: 3 }, '{"Z":3,"z":2,"é":1}'],
    // UTF-16 code-unit order, not code-point order: U+1F600 is D83D DE00, before U+FFFF.
    ["UTF-16 code-unit order", { "\uffff": 1, "😀": 2 }, '{"😀":2,"\uffff":1}'],
    ["prefix before longer key", { ab: 1, a: 2, "": 3 }, '{"":3,"a":2,"ab":1}'],
    [
      "nested objects sorted at every level",
      { z: { y: 1, x: [{ d: 1, c: 2 }] }, a: {} },
      '{"a":{},"z":{"x":[{"c":2,"d":1}],"y":1}}',
    ],
    ["arrays keep their order", [3, 1, 2, [{ b: 1, a: 0 }]], '[3,1,2,[{"a":0,"b":1}]]'],
  ];
  it.each(cases)("%s", (_name, value, want) => {
    expect(canonical(value)).toBe(want);
  });
});

describe("canonical: a key order sorted once is reused only for the same keys in the same order", () => {
  it("gives the oracle's text for 40 shapes, each seen 5 times, interleaved (more shapes than it keeps)", () => {
    const shapes = Array.from({ length: 40 }, (_, s) => {
      const keys = ["z", "m", "a", `k${s}`, "b"].slice(0, 2 + (s % 4));
      return s % 2 === 0 ? keys : [...keys].reverse();
    });
    for (let round = 0; round < 5; round++)
      for (const [s, keys] of shapes.entries()) {
        const value = Object.fromEntries(keys.map((k, i) => [k, { [`${k}2`]: round, a: i, [k]: s }]));
        expect(canonical(value), JSON.stringify(keys)).toBe(oracle(value));
      }
  });
  it("an object with the same keys in another order, or one key more, is not given a kept order", () => {
    for (const value of [
      { c: 1, b: 2, a: 3 },
      { b: 1, c: 2, a: 3 },
      { c: 1, b: 2, a: 3, d: 4 },
      { c: 1, b: 2 },
      { c: 1, b: 2, a: 3 },
    ])
      expect(canonical(value)).toBe(oracle(value));
  });
});

describe("canonical: null, undefined and absent fields", () => {
  const cases: [string, unknown, string][] = [
    ["null value kept", { a: null }, '{"a":null}'],
    ["undefined field omitted", { a: undefined, b: 1 }, '{"b":1}'],
    ["object of only undefined fields", { a: undefined }, "{}"],
    ["undefined in an array reads as null, like JSON.stringify", [1, undefined, 2], "[1,null,2]"],
    ["null in an array", [null], "[null]"],
    ["top-level null", null, "null"],
    ["empty array and object", { a: [], b: {} }, '{"a":[],"b":{}}'],
  ];
  it.each(cases)("%s", (_name, value, want) => {
    expect(canonical(value)).toBe(want);
    // …and it parses back to what JSON.stringify would have produced.
    expect(JSON.parse(canonical(value))).toEqual(JSON.parse(JSON.stringify(value)));
  });
});

describe("canonical: strings are escaped exactly like JSON.stringify", () => {
  const strings: [string, string][] = [
    ["quotes", 'say "hi"'],
    ["backslash", "C:\\path\\x"],
    ["newline, tab, CR", "a\nb\tc\rd"],
    ["control characters", "\u0000\u0001\u001f\u007f\b\f"],
    ["non-ASCII kept raw", "héllo wörld ☃ 日本"],
    ["astral plane", "😀🎉"],
    ["lone high surrogate", "x\ud800y"],
    ["lone low surrogate", "\udc00"],
    ["line/paragraph separators", "\u2028\u2029"],
    ["empty", ""],
  ];
  it.each(strings)("%s", (_name, s) => {
    expect(canonical(s)).toBe(JSON.stringify(s));
    expect(canonical({ [s]: s })).toBe(`{${JSON.stringify(s)}:${JSON.stringify(s)}}`);
  });
});

describe("canonical: numbers as JSON.stringify writes them", () => {
  const cases: [string, unknown, string][] = [
    ["1.0 → 1", 1.0, "1"],
    ["-0 → 0", -0, "0"],
    ["1e21 → 1e+21", 1e21, "1e+21"],
    ["1e20 stays plain", 1e20, "100000000000000000000"],
    ["small fraction", 1e-7, "1e-7"],
    ["0.1 + 0.2", 0.1 + 0.2, "0.30000000000000004"],
    ["negative", -42.5, "-42.5"],
    ["max safe integer", Number.MAX_SAFE_INTEGER, "9007199254740991"],
    ["NaN → null", Number.NaN, "null"],
    ["Infinity → null", Number.POSITIVE_INFINITY, "null"],
    ["booleans", [true, false], "[true,false]"],
    ["numbers inside objects", { n: -0, m: 1.5e300 }, '{"m":1.5e+300,"n":0}'],
  ];
  it.each(cases)("%s", (_name, value, want) => {
    expect(canonical(value)).toBe(want);
  });
});

describe("canonical agrees with the verify-export oracle", () => {
  const KEYS = [
    "a",
    "b",
    "B",
    "_",
    "10",
    "2",
    "1",
    "é",
    "😀",
    "\uffff",
    "key with space",
    'q"uote',
    "",
    "seq",
    "digest",
  ];
  const STRINGS = [
    "",
    "x",
    'a"b',
    "back\\slash",
    "line\nbreak",
    "tab\t",
    "\u0000",
    "é",
    "😀",
    "\ud800",
    "\u2028",
    "日本語",
  ];
  const NUMBERS = [0, -0, 1, -1, 1.5, 1e21, 1e-7, 123456789012, Number.MAX_SAFE_INTEGER, 0.1 + 0.2, -1e-300];

  function generate(r: ReturnType<typeof prng>, depth: number): unknown {
    // The top level is an object or array, as an event is; leaves get likelier with depth.
    const kind = depth === 0 ? 4 + r.int(3) : r.int(depth > 3 ? 4 : 7);
    switch (kind) {
      case 0:
        return null;
      case 1:
        return r.next() < 0.5;
      case 2:
        return r.next() < 0.5 ? r.pick(NUMBERS) : (r.next() - 0.5) * 10 ** r.int(25);
      case 3: {
        if (r.next() < 0.5) return r.pick(STRINGS);
        let s = "";
        for (let i = r.int(8); i > 0; i--) s += String.fromCharCode(r.int(0x3000));
        return s;
      }
      case 4:
      case 5: {
        const o: Record<string, unknown> = {};
        for (let i = r.int(6); i > 0; i--) {
          const k = r.next() < 0.7 ? r.pick(KEYS) : String(r.int(100));
          // undefined fields must be omitted by both.
          o[k] = r.next() < 0.1 ? undefined : generate(r, depth + 1);
        }
        return o;
      }
      default: {
        // No undefined inside arrays here: the oracle is only defined on what JSON.parse can produce.
        const a: unknown[] = [];
        for (let i = r.int(5); i > 0; i--) a.push(generate(r, depth + 1));
        return a;
      }
    }
  }

  const r = prng(0x5eed);
  const values = Array.from({ length: 400 }, () => generate(r, 0));

  it("generates a varied corpus (objects with several keys, nesting)", () => {
    const objects = values.filter((v) => v && typeof v === "object" && !Array.isArray(v) && Object.keys(v).length > 2);
    expect(objects.length).toBeGreaterThan(100);
    expect(values.some((v) => canonical(v).includes('"10"'))).toBe(true);
  });

  it("gives the oracle's text for 400 seeded random values", () => {
    const mismatches = values.filter((v) => canonical(v) !== oracle(v));
    expect(mismatches.map((v) => ({ ours: canonical(v), oracle: oracle(v) }))).toEqual([]);
  });

  it("is valid JSON with the same data as JSON.stringify, and a fixed point", () => {
    for (const v of values) {
      const text = canonical(v);
      expect(JSON.parse(text)).toEqual(JSON.parse(JSON.stringify(v)));
      expect(canonical(JSON.parse(text))).toBe(text);
    }
  });
});

describe("canonical gives the previous implementation's bytes (the digests of stored events)", () => {
  // canonical() as it was before it was written for an append's cost, verbatim.
  const previous = (value: unknown): string => {
    if (value === null || typeof value !== "object") {
      const text = JSON.stringify(value);
      return text === undefined ? "null" : text;
    }
    if (Array.isArray(value)) return `[${value.map(previous).join(",")}]`;
    const obj = value as Record<string, unknown>;
    const keys = Object.keys(obj)
      .filter((k) => obj[k] !== undefined)
      .sort();
    let out = "{";
    for (let i = 0; i < keys.length; i++) {
      const k = keys[i] as string;
      if (i > 0) out += ",";
      out += `${JSON.stringify(k)}:${previous(obj[k])}`;
    }
    return `${out}}`;
  };
  const r = prng(0xc0ffee);
  const KEYS = ["seq", "at", "author", "content", "text", "é", "😀", "\uffff", "10", "2", "a b", 'q"', "", "Z", "z"];
  const piece = () => {
    const cases = ["plain words", 'a "quote"', "back\\slash", "\n\t\r", "\u0000\u001f", "\u007f", "é日本", "😀🎉"];
    const lone = ["\ud800", "\udfff", "x\ud83dy", "\ude00z"];
    return r.next() < 0.15 ? r.pick(lone) : r.pick(cases);
  };
  const text = () => {
    let s = "";
    for (let i = r.int(40); i > 0; i--) s += piece();
    return r.next() < 0.2 ? s.repeat(20) : s;
  };
  function value(depth: number): unknown {
    const kind = r.int(depth > 3 ? 6 : 9);
    if (kind === 0) return null;
    if (kind === 1) return undefined;
    if (kind === 2) return r.next() < 0.5;
    if (kind === 3) return r.pick([0, -0, 1.5, 1e21, Number.NaN, -7]);
    if (kind <= 5) return text();
    if (kind === 6) return Array.from({ length: r.int(5) }, () => value(depth + 1));
    const o: Record<string, unknown> = {};
    // Sometimes in sorted order already (the common case the new code does not sort), sometimes not.
    const keys = Array.from({ length: r.int(7) }, () => r.pick(KEYS));
    if (r.next() < 0.5) keys.sort();
    for (const k of keys) o[k] = value(depth + 1);
    return o;
  }
  const event = () => ({
    author: "model",
    modelVisibility: "visible",
    turnId: "t",
    content: { type: "text", text: text() },
    actions: r.next() < 0.5 ? undefined : { stateDelta: { [r.pick(KEYS)]: value(1) } },
    seq: r.int(100_000),
    sessionId: "s",
    at: "2026-12-01T00:00:00.000Z",
  });
  const values = Array.from({ length: 1500 }, (_, i) => (i % 3 === 0 ? event() : value(0)));

  it("for 1,500 seeded values: events, undefined fields and array items, unicode keys, lone surrogates", () => {
    expect(values.filter((v) => canonical(v) !== previous(v)).map((v) => [canonical(v), previous(v)])).toEqual([]);
    // The corpus reaches both string paths and both key orders.
    const all = values.map((v) => canonical(v)).join("");
    expect(all).toContain("\\ud800");
    expect(all).toContain("😀");
    expect(all).toContain('\\"');
  });
});
