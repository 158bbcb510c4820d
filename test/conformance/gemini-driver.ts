/**
 * Conformance scenarios driven by the official `@google/genai` SDK. Sync turns use
 * `models.generateContent`; streamed turns use `models.generateContentStream` (SSE), assembling the
 * answer from the chunks and recording what each chunk carried. Tools are declared the classic
 * genai way, with OpenAPI-style `parameters` (Type.OBJECT, Type.STRING, ...).
 */
import { Type, type Content, type FunctionDeclaration, type GenerateContentConfig, type GenerateContentResponse, type GoogleGenAI, type Part, type Schema } from '@google/genai';
import { INPUT, PDF, PNG, TOOLS, type Driver, type NormalizedFinish, type ScenarioRun, type StreamTrace, type TurnResult } from './types.js';

type GeminiTrace = Extract<StreamTrace, { client: 'gemini' }>;

const TYPE: Record<string, Type> = { object: Type.OBJECT, string: Type.STRING, boolean: Type.BOOLEAN, integer: Type.INTEGER, number: Type.NUMBER };

/** JSON Schema -> the genai OpenAPI-style Schema (upper-case types). */
function toGeminiSchema(s: Record<string, unknown>): Schema {
  const out: Schema = {};
  if (typeof s.type === 'string') out.type = TYPE[s.type];
  if (s.properties && typeof s.properties === 'object') {
    out.properties = Object.fromEntries(Object.entries(s.properties as Record<string, Record<string, unknown>>).map(([k, v]) => [k, toGeminiSchema(v)]));
  }
  if (Array.isArray(s.required)) out.required = s.required as string[];
  return out;
}

const declarations: FunctionDeclaration[] = TOOLS.map((t) => ({ name: t.name, description: t.description, parameters: toGeminiSchema(t.parameters as unknown as Record<string, unknown>) }));
const tools = [{ functionDeclarations: declarations }];

function finishOf(raw: string | undefined): NormalizedFinish {
  return raw === 'STOP' ? 'stop' : raw === 'MAX_TOKENS' ? 'length' : 'other';
}

function textOf(parts: Part[]): string {
  return parts.map((p) => (typeof p.text === 'string' && !p.thought ? p.text : '')).join('');
}

function callsOf(parts: Part[]): TurnResult['toolCalls'] {
  return parts
    .filter((p) => p.functionCall)
    .map((p, index) => ({
      ...(p.functionCall?.id !== undefined ? { id: p.functionCall.id } : {}),
      index,
      name: p.functionCall?.name ?? '',
      args: (p.functionCall?.args ?? {}) as Record<string, unknown>,
    }));
}

function usageOf(r: GenerateContentResponse | undefined): TurnResult['usage'] {
  const u = r?.usageMetadata;
  if (!u) return undefined;
  return { input: u.promptTokenCount ?? 0, output: u.candidatesTokenCount ?? 0, total: u.totalTokenCount ?? 0 };
}

export function geminiDriver(ai: GoogleGenAI): Driver {
  /** One turn; returns the normalized result and the model's content to replay. */
  async function turn(run: ScenarioRun, contents: Content[], config: GenerateContentConfig = {}): Promise<{ result: TurnResult; content: Content }> {
    if (run.mode === 'sync') {
      const r = await ai.models.generateContent({ model: run.model, contents, config });
      const candidate = r.candidates?.[0];
      const parts = candidate?.content?.parts ?? [];
      const result: TurnResult = {
        text: textOf(parts),
        toolCalls: callsOf(parts),
        finishReason: finishOf(candidate?.finishReason),
        rawFinish: candidate?.finishReason ?? null,
        stopSequence: null,
        usage: usageOf(r),
        model: r.modelVersion,
        id: r.responseId,
      };
      return { result, content: candidate?.content ?? { role: 'model', parts: [] } };
    }
    const trace: GeminiTrace = { client: 'gemini', chunks: 0, textChunks: 0, functionCallChunks: [], finishChunks: 0, responseIds: 0 };
    const ids = new Set<string | undefined>();
    const parts: Part[] = [];
    let finish: string | undefined;
    let lastWithUsage: GenerateContentResponse | undefined;
    let last: GenerateContentResponse | undefined;
    for await (const chunk of await ai.models.generateContentStream({ model: run.model, contents, config })) {
      trace.chunks++;
      last = chunk;
      ids.add(chunk.responseId);
      const candidate = chunk.candidates?.[0];
      const chunkParts = candidate?.content?.parts ?? [];
      if (chunkParts.some((p) => typeof p.text === 'string' && p.text !== '' && !p.thought)) trace.textChunks++;
      const calls = chunkParts.filter((p) => p.functionCall);
      if (calls.length) trace.functionCallChunks.push(calls.map((p) => ({ name: p.functionCall?.name, args: p.functionCall?.args as Record<string, unknown> | undefined })));
      if (candidate?.finishReason) {
        trace.finishChunks++;
        finish = candidate.finishReason;
      }
      if (chunk.usageMetadata) lastWithUsage = chunk;
      parts.push(...chunkParts.filter((p) => p.functionCall || (typeof p.text === 'string' && p.text !== '')));
    }
    trace.responseIds = ids.size;
    const result: TurnResult = { text: textOf(parts), toolCalls: callsOf(parts), finishReason: finishOf(finish), rawFinish: finish ?? null, stopSequence: null, usage: usageOf(lastWithUsage), model: last?.modelVersion, id: last?.responseId, trace };
    return { result, content: { role: 'model', parts } };
  }

  const user = (text: string): Content => ({ role: 'user', parts: [{ text }] });
  const history = (items: ReadonlyArray<{ role: 'user' | 'assistant'; text: string }>): Content[] =>
    items.map((m) => ({ role: m.role === 'assistant' ? 'model' : 'user', parts: [{ text: m.text }] }));

  return {
    'plain-text': async (run) => [(await turn(run, [user(INPUT.plain)])).result],

    'system-multi-turn': async (run) => [(await turn(run, history(INPUT.history), { systemInstruction: INPUT.system })).result],

    'parallel-tools': async (run) => {
      const contents = [user(INPUT.toolPrompt)];
      const first = await turn(run, contents, { tools });
      const calls = (first.content.parts ?? []).filter((p) => p.functionCall).map((p) => p.functionCall!);
      const answer: Content = {
        role: 'user',
        parts: calls.map((c, i) => ({ functionResponse: { ...(c.id ? { id: c.id } : {}), name: c.name ?? '', response: { result: INPUT.toolResults[i] ?? '' } } })),
      };
      const second = await turn(run, [...contents, first.content, answer], { tools });
      return [first.result, second.result];
    },

    'image-input': async (run) => [(await turn(run, [{ role: 'user', parts: [{ text: INPUT.imagePrompt }, { inlineData: { mimeType: 'image/png', data: PNG } }, { fileData: { mimeType: 'image/jpeg', fileUri: INPUT.imageUrl } }] }])).result],

    'pdf-input': async (run) => [(await turn(run, [{ role: 'user', parts: [{ text: INPUT.pdfPrompt }, { inlineData: { mimeType: 'application/pdf', data: PDF } }] }])).result],

    'stop-and-max-tokens': async (run) => [
      (await turn(run, [user(INPUT.stopPrompt)], { stopSequences: [INPUT.stopSequence] })).result,
      (await turn(run, [user(INPUT.stopPrompt)], { maxOutputTokens: INPUT.maxTokens })).result,
    ],

    usage: async (run) => [(await turn(run, history(INPUT.usageHistory))).result],
  };
}
