// The contract between the sampler (engine) and everything that generates text (agent, rl, tts).

export interface GenerateRequest {
  prompt: string;            // already chat-templated text
  maxNewTokens: number;
  temperature: number;       // 0 = greedy
  topP: number;              // 1 = off
  topK: number;              // 0 = off
  stop: string[];            // generation ends after the first stop string (it is kept in the text)
  seed: number;              // per-request seed: same seed, same tokens on the same backend
}

export interface Generation {
  text: string;
  promptIds: number[];
  outputIds: number[];
  logprobs: number[];        // log p of each output token under the sampling distribution before temperature
  entropy: number[];         // per output token
  finishReason: 'stop' | 'eos' | 'length';
}

/** Batched text generation. Requests in one call advance together (one batch through the sampler). */
export interface TextGenerator {
  readonly name: string;
  generate(reqs: GenerateRequest[]): Promise<Generation[]>;
  /** Token count of a text under this generator's tokenizer (for context caps). */
  countTokens(text: string): number;
  /** Maximum context length (prompt + output) in tokens. */
  readonly maxContext: number;
}
