import { defineWorkersAiSuite } from "../../fakes/workers-ai-suite";

defineWorkersAiSuite("Node");
