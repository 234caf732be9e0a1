/** What OpenAI's strict mode would refuse in `schema` (a function's `parameters`), one line each. */
export function openAiStrictProblems(schema: Record<string, unknown>): string[];
