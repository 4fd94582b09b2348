/**
 * Byte bounds on what an MCP server says of its tools (docs/API.md#mcp-servers): every
 * description and schema goes to the model with every request, so a server cannot make a session's
 * requests too large to send. Pure.
 */
import { canonical } from "../../log";
import { utf8ByteLength } from "../builtin/text";

export const MCP_TOOL_BOUNDS = {
  /** UTF-8 bytes of one tool's description; a longer one is skipped. */
  descriptionBytes: 16 * 1024,
  /** Bytes of one tool's input schema as canonical JSON; a larger one is skipped. */
  schemaBytes: 64 * 1024,
  /** Bytes of a server's kept tools' descriptions and schemas in total; over it the server is unavailable. */
  listingBytes: 1024 * 1024,
};

/** Why one tool is too large to give the model (it is skipped), or null; and the bytes it counts for. */
export function toolBytes(tool: { description?: string; inputSchema: unknown }): {
  bytes: number;
  tooLarge: string | null;
} {
  const description = utf8ByteLength(tool.description ?? "");
  const schema = utf8ByteLength(canonical(tool.inputSchema));
  const b = MCP_TOOL_BOUNDS;
  const tooLarge =
    description > b.descriptionBytes
      ? `its description is ${description} bytes (at most ${b.descriptionBytes})`
      : schema > b.schemaBytes
        ? `its input schema is ${schema} bytes (at most ${b.schemaBytes})`
        : null;
  return { bytes: description + schema, tooLarge };
}

/** The reason a server whose kept tools add up to `total` bytes is unavailable, or null. */
export function listingTooLarge(total: number): string | null {
  const limit = MCP_TOOL_BOUNDS.listingBytes;
  return total > limit ? `its tools' descriptions and schemas exceed ${limit} bytes in total` : null;
}
