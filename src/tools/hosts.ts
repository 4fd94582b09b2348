/**
 * `HTTP_TOOL_ALLOWED_HOSTS` (docs/API.md §1): comma-separated `host[:port]` patterns.
 * `*` is any host, `*.example.com` any subdomain of example.com (not the apex),
 * port `*` any port, no port means 80 or 443. IPv6 hosts are written in brackets
 * (`[::1]:8080`); a bare IPv6 literal (`::1`) is read as a host with no port.
 */
export function parseAllowedHosts(csv?: string): string[] {
  if (!csv) return [];
  return csv
    .split(",")
    .map((p) => p.trim().toLowerCase())
    .filter(Boolean);
}

type HostPattern = { kind: "any" } | { kind: "exact"; host: string } | { kind: "subdomains"; suffix: string };
type PortPattern = "any" | "default" | number;

const DEFAULT_PORTS = new Set([80, 443]);

/** Canonical hostname as the URL parser writes it (lowercase, punycode, IPv4 and IPv6 normalized), or null. */
function canonicalHost(host: string): string | null {
  try {
    const url = new URL(`http://${host}/`);
    if (url.port !== "" || url.username !== "" || url.password !== "") return null;
    return stripDot(url.hostname);
  } catch {
    return null;
  }
}

function stripDot(host: string): string {
  return host.endsWith(".") ? host.slice(0, -1) : host;
}

function isIpLiteral(host: string): boolean {
  return host.startsWith("[") || /^\d+\.\d+\.\d+\.\d+$/.test(host);
}

/** Parses one pattern; null for a pattern that can never match (it is then ignored). */
export function parseHostPattern(pattern: string): { host: HostPattern; port: PortPattern } | null {
  const p = pattern.trim().toLowerCase();
  if (p === "") return null;
  let hostPart: string;
  let portPart: string | undefined;
  if (p.startsWith("[")) {
    const close = p.indexOf("]");
    if (close < 0) return null;
    hostPart = p.slice(0, close + 1);
    const rest = p.slice(close + 1);
    if (rest !== "" && !rest.startsWith(":")) return null;
    portPart = rest === "" ? undefined : rest.slice(1);
  } else if ((p.match(/:/g)?.length ?? 0) > 1) {
    hostPart = `[${p}]`;
  } else {
    const colon = p.indexOf(":");
    hostPart = colon < 0 ? p : p.slice(0, colon);
    portPart = colon < 0 ? undefined : p.slice(colon + 1);
  }
  if (/[/?#@\s\\]/.test(hostPart)) return null;
  let port: PortPattern;
  if (portPart === undefined) port = "default";
  else if (portPart === "*") port = "any";
  else if (/^\d{1,5}$/.test(portPart) && Number(portPart) <= 65535) port = Number(portPart);
  else return null;

  let host: HostPattern;
  if (hostPart === "*") host = { kind: "any" };
  else if (hostPart.startsWith("*.")) {
    const suffix = canonicalHost(hostPart.slice(2));
    if (!suffix || isIpLiteral(suffix)) return null;
    host = { kind: "subdomains", suffix };
  } else {
    const exact = canonicalHost(hostPart);
    if (!exact) return null;
    host = { kind: "exact", host: exact };
  }
  return { host, port };
}

function effectivePort(url: URL): number {
  if (url.port !== "") return Number(url.port);
  return url.protocol === "https:" ? 443 : 80;
}

/** True when `url` is http(s) and some pattern allows its host and port. An empty list allows nothing. */
export function isUrlAllowed(url: URL, patterns: string[]): boolean {
  if (url.protocol !== "http:" && url.protocol !== "https:") return false;
  const host = stripDot(url.hostname.toLowerCase());
  if (host === "") return false;
  const port = effectivePort(url);
  for (const raw of patterns) {
    const pattern = parseHostPattern(raw);
    if (!pattern) continue;
    const portOk =
      pattern.port === "any" || (pattern.port === "default" ? DEFAULT_PORTS.has(port) : pattern.port === port);
    if (!portOk) continue;
    const h = pattern.host;
    if (h.kind === "any") return true;
    if (h.kind === "exact" && h.host === host) return true;
    if (h.kind === "subdomains" && !isIpLiteral(host) && host.endsWith(`.${h.suffix}`)) return true;
  }
  return false;
}
