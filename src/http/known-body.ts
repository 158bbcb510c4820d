/**
 * A Response that remembers the text it was built from. Adapters that write to a socket (the node
 * bridge) can send that text directly instead of reading the body stream back, which in Node
 * costs more than building the whole answer. Other hosts just read the body as usual.
 */
const BODY_TEXT = Symbol.for('modelgate.bodyText');

type WithBodyText = Response & { [BODY_TEXT]?: string };

/** `new Response(text, init)`, remembering `text`. */
export function textResponse(text: string, init: ResponseInit): Response {
  const response: WithBodyText = new Response(text, init);
  response[BODY_TEXT] = text;
  return response;
}

/** The text a Response was built from, while its body has not been read. */
export function knownBodyText(response: Response): string | undefined {
  return response.bodyUsed ? undefined : (response as WithBodyText)[BODY_TEXT];
}
