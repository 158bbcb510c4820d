/** One route of the mock vendor: an answer for the requests it serves, undefined for the rest. */
export type MockRoute = (request: Request, url: URL, now: number) => Promise<Response | undefined>;
