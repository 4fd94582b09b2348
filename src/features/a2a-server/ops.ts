/**
 * The session object's A2A operations (docs/API.md#a2a-server), called through its one generic
 * path once the caller is admitted: a task read from the log, and its push configs. The edge
 * validated the input; a task that is not one of this session's is 404 (TaskNotFound).
 */
import { z } from "zod";
import { ApiError } from "../../contract";
import type { Operation } from "../../session/feature";
import { deleteConfig, listConfigs, type PushConfig, readConfig, saveConfig } from "./push-store";
import { readTurn } from "./turn-read";

const Ref = { turnId: z.string().min(1).max(128), seq: z.number().int().min(1) };
const Read = z.object({ ...Ref, after: z.number().int().min(0).optional() });
const Config = z.object({
  taskId: z.string(),
  id: z.string().min(1).max(200),
  url: z.string().max(2048),
  token: z.string().max(4096).nullable(),
  authentication: z.object({ scheme: z.string().max(100), credentials: z.string().max(4096) }).nullable(),
});
const WithConfig = z.object({ ...Ref, config: Config });
const WithId = z.object({ ...Ref, taskId: z.string(), id: z.string().min(1).max(200) });
const WithTask = z.object({ ...Ref, taskId: z.string() });

function parse<T>(schema: z.ZodType<T>, input: unknown): T {
  const r = schema.safeParse(input);
  if (!r.success) throw new ApiError("bad_request", r.error.issues.map((i) => i.message).join("; "));
  return r.data;
}

export const a2aOperations: Record<string, Operation> = {
  read: (admitted, input) => readTurn(admitted, parse(Read, input)),
  pushSet: (admitted, input) => {
    const { turnId, seq, config } = parse(WithConfig, input);
    const view = readTurn(admitted, { turnId, seq, after: admitted.runtime.session().highWater });
    const saved = saveConfig(admitted.sql, turnId, config as PushConfig, {
      state: view.state,
      head: view.head,
      at: view.updatedAt,
    });
    // A task already finished is reported at once: the alarm delivers it.
    return admitted.runtime.arm().then(() => saved);
  },
  pushGet: (admitted, input) => {
    const { turnId, seq, taskId, id } = parse(WithId, input);
    readTurn(admitted, { turnId, seq, after: admitted.runtime.session().highWater });
    const found = readConfig(admitted.sql, taskId, id);
    if (!found) throw new ApiError("not_found", `no push config ${id} for task ${taskId}`);
    return found;
  },
  pushList: (admitted, input) => {
    const { turnId, seq, taskId } = parse(WithTask, input);
    readTurn(admitted, { turnId, seq, after: admitted.runtime.session().highWater });
    return listConfigs(admitted.sql, taskId);
  },
  pushDelete: (admitted, input) => {
    const { turnId, seq, taskId, id } = parse(WithId, input);
    readTurn(admitted, { turnId, seq, after: admitted.runtime.session().highWater });
    if (!deleteConfig(admitted.sql, taskId, id))
      throw new ApiError("not_found", `no push config ${id} for task ${taskId}`);
    return { deleted: true };
  },
};
