/** The canonical embeddings request and answer: what every embeddings entry point decodes to and every vendor is called from. */
import type { IRUsage } from './types.js';

/** One thing to embed: a text, or (OpenAI only) a list of token ids. */
export type IREmbeddingInput = { text: string } | { tokens: number[] };

export interface IREmbeddingRequest {
  /** The public model id. */
  model: string;
  /** In the caller's order; the answer holds one vector per input, in the same order. */
  inputs: IREmbeddingInput[];
  /** Shorter vectors (OpenAI `dimensions`, Gemini `outputDimensionality`). */
  dimensions?: number;
  /** End-user id (OpenAI `user`). */
  user?: string;
  /** Gemini: what the vectors are for (`RETRIEVAL_QUERY`, `RETRIEVAL_DOCUMENT`, ...), per input. */
  taskTypes?: Array<string | undefined>;
  /** Gemini: the document's title (with RETRIEVAL_DOCUMENT), per input. */
  titles?: Array<string | undefined>;
}

export interface IREmbeddingResponse {
  /** One vector per input, in input order. */
  vectors: number[][];
  /** The model the upstream reports (or was asked for). */
  model: string;
  /** Input tokens: the vendor's count, or the gateway's estimate when the vendor reports none (Gemini). */
  usage?: IRUsage;
}
