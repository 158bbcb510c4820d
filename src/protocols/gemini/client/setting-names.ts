import { ownValue } from '../../../core/own-key.js';

/** IR setting names -> the Gemini generateContent request fields a client sets them with (for warnings). */
const NAMES: Record<string, string> = {
  topK: 'generationConfig.topK',
  topP: 'generationConfig.topP',
  temperature: 'generationConfig.temperature',
  stop: 'generationConfig.stopSequences',
  n: 'generationConfig.candidateCount',
  maxTokens: 'generationConfig.maxOutputTokens',
  presencePenalty: 'generationConfig.presencePenalty',
  frequencyPenalty: 'generationConfig.frequencyPenalty',
  seed: 'generationConfig.seed',
  reasoning: 'generationConfig.thinkingConfig',
  messages: 'contents',
  tools: 'tools',
};

export function geminiSettingName(setting: string): string {
  return ownValue(NAMES, setting) ?? setting;
}
