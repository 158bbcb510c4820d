import { googleSettingName, reasoningFieldName } from './reasoning-extensions.js';
import { ownValue } from '../../../core/own-key.js';

/** IR setting names -> the OpenAI chat request fields a client sets them with (for warnings). */
const NAMES: Record<string, string> = {
  topK: 'top_k',
  topP: 'top_p',
  temperature: 'temperature',
  stop: 'stop',
  n: 'n',
  presencePenalty: 'presence_penalty',
  frequencyPenalty: 'frequency_penalty',
  seed: 'seed',
  user: 'user',
  reasoning: 'reasoning_effort',
  parallelToolCalls: 'parallel_tool_calls',
  messages: 'messages',
  tools: 'tools',
};

export function openAIChatSettingName(setting: string, body: Record<string, unknown>): string {
  if (setting === 'reasoning') return reasoningFieldName(body);
  const google = googleSettingName(setting, body);
  if (google) return google;
  if (setting === 'maxTokens') return body.max_completion_tokens !== undefined ? 'max_completion_tokens' : 'max_tokens';
  return ownValue(NAMES, setting) ?? setting;
}
