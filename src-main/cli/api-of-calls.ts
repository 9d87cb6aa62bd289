import { API_VERBS, type ApiArea, type AppApi, type Result } from '../shared/contract';

/** An AppApi whose every verb (API_VERBS) is `call("area.verb", input)`: the one way the CLI builds a client. */
export function apiOfCalls(call: (method: string, input: unknown) => Promise<Result<unknown>>): AppApi {
  return Object.fromEntries(
    (Object.keys(API_VERBS) as ApiArea[]).map((area) => [
      area,
      Object.fromEntries(
        (API_VERBS[area] as readonly string[]).map((verb) => [
          verb,
          (input: unknown) => call(`${area}.${verb}`, input),
        ]),
      ),
    ]),
  ) as unknown as AppApi;
}
