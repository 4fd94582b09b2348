import { describe, expect, it } from "vitest";
import { isUrlAllowed, parseAllowedHosts } from "../../../src/tools/hosts";

describe("parseAllowedHosts", () => {
  it.each([
    [undefined, []],
    ["", []],
    [" , ,", []],
    ["example.com", ["example.com"]],
    [" Example.COM:8080 , *.api.io ,*", ["example.com:8080", "*.api.io", "*"]],
  ])("parses %j", (csv, expected) => {
    expect(parseAllowedHosts(csv)).toEqual(expected);
  });
});

describe("isUrlAllowed", () => {
  // [patterns csv, url, allowed]
  const cases: [string, string, boolean][] = [
    // empty list refuses everything
    ["", "https://example.com/", false],
    // exact host, default ports only
    ["example.com", "https://example.com/x", true],
    ["example.com", "http://example.com/x", true],
    ["example.com", "http://example.com:443/", true],
    ["example.com", "https://example.com:8443/", false],
    ["example.com", "https://www.example.com/", false],
    ["example.com", "https://notexample.com/", false],
    ["example.com", "https://example.com.evil.net/", false],
    ["example.com", "https://EXAMPLE.com/", true],
    ["EXAMPLE.COM", "https://example.com/", true],
    ["example.com", "https://example.com./", true],
    ["example.com", "https://user:pw@example.com/", true],
    ["example.com", "https://example.com@evil.net/", false],
    // schemes
    ["example.com", "ftp://example.com/", false],
    ["example.com", "file:///etc/passwd", false],
    ["*", "ws://example.com/", false],
    ["*:*", "data:text/plain,hi", false],
    // explicit ports
    ["example.com:8080", "http://example.com:8080/", true],
    ["example.com:8080", "http://example.com/", false],
    ["example.com:*", "http://example.com:9999/", true],
    ["example.com:*", "https://example.com/", true],
    ["example.com:*", "https://other.com:9999/", false],
    // subdomain wildcard: subdomains only, not the apex
    ["*.example.com", "https://api.example.com/", true],
    ["*.example.com", "https://a.b.example.com/", true],
    ["*.example.com", "https://example.com/", false],
    ["*.example.com", "https://badexample.com/", false],
    ["*.example.com", "https://api.example.com:8080/", false],
    ["*.example.com:*", "https://api.example.com:8080/", true],
    ["*.example.com,example.com", "https://example.com/", true],
    // any host
    ["*", "https://anything.test/", true],
    ["*", "http://127.0.0.1/", true],
    ["*", "http://127.0.0.1:8787/", false],
    ["*:*", "http://127.0.0.1:8787/", true],
    ["*:8787", "http://localhost:8787/", true],
    ["*:8787", "http://localhost:8788/", false],
    // IP literals
    ["127.0.0.1:*", "http://127.0.0.1:3000/", true],
    ["127.0.0.1:*", "http://127.1:3000/", true], // the URL parser normalizes 127.1
    ["127.0.0.1:*", "http://localhost:3000/", false],
    ["[::1]:8080", "http://[::1]:8080/", true],
    ["[::1]:8080", "http://[::1]:8081/", false],
    ["[::1]", "http://[::1]/", true],
    ["[::1]:*", "http://[0:0:0:0:0:0:0:1]:5/", true],
    ["::1", "http://[::1]/", true],
    ["[::1]", "http://[::2]/", false],
    ["*.0.0.1", "http://127.0.0.1/", false],
    // malformed patterns never match
    ["example.com:99999", "http://example.com/", false],
    ["example.com:abc", "http://example.com/", false],
    ["example.com/path", "http://example.com/", false],
    ["[::1", "http://[::1]/", false],
  ];
  it.each(cases)("patterns %j, %s → %s", (csv, url, allowed) => {
    expect(isUrlAllowed(new URL(url), parseAllowedHosts(csv))).toBe(allowed);
  });
});
