/**
 * The order the suite's files start in: longest first, by the durations of an earlier run
 * (`test/durations.json`, refreshed by `node scripts/test-durations.mjs <vitest json report>`),
 * whatever their project. Vitest's own order runs project after project (the workerd files, then
 * the e2e files, then the Node files), so a long crash file that starts last sets the suite's
 * end; started first, the short files fill the slots beside it. A file the list does not know
 * yet counts as a middling one, by its environment.
 */
import { readFileSync } from "node:fs";
import { relative } from "node:path";
import { fileURLToPath } from "node:url";
import { BaseSequencer, type TestSpecification } from "vitest/node";

const known: Record<string, number> = JSON.parse(
  readFileSync(fileURLToPath(new URL("./durations.json", import.meta.url).href), "utf8"),
);
const ROOT = fileURLToPath(new URL("../", import.meta.url).href);

/** Seconds a file took last time, or a guess for a new one. */
function expected(spec: TestSpecification): number {
  const file = relative(ROOT, spec.moduleId).split("\\").join("/");
  return known[file] ?? (/\.e2e\.test|test\/(e2e|browser)\//.test(file) ? 30 : 3);
}

export default class LongestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    return [...files].sort((a, b) => expected(b) - expected(a));
  }
}
