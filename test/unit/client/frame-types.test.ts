/**
 * The client's frame types are the contract's (docs/API.md §4): one type per name. Checked by
 * `npx tsc --noEmit` (this file is in the project); the runtime assertion only keeps vitest happy.
 */
import { describe, expectTypeOf, it } from "vitest";
import type { ClientFrame, ClientFrameBody, Connection } from "../../../src/client";
import type * as Contract from "../../../src/contract";

describe("the client's frame types", () => {
  it("are the contract's under the same names", () => {
    expectTypeOf<ClientFrame>().toEqualTypeOf<Contract.ClientFrame>();
    expectTypeOf<ClientFrameBody>().toEqualTypeOf<Contract.ClientFrameBody>();
    // `send` takes a frame as a caller writes it; the connection adds the id.
    expectTypeOf<Parameters<Connection["send"]>[0]>().toEqualTypeOf<Contract.ClientFrameBody>();
    expectTypeOf<Contract.ClientFrame>().toHaveProperty("id");
  });
});
