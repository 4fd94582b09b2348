/** Work records: a topic's current revision and the entries it does not cover yet. */
export type RecordEntry = { id: number; text: string; refs: number[]; seq: number; at: string };

export type RecordView = {
  topic: string;
  revision: number;
  content: string;
  coversEntry: number;
  uncovered: RecordEntry[];
};

/** A topic as `GET /records` lists it. */
export type RecordTopic = { topic: string; revision: number; coversEntry: number; entries: number };
