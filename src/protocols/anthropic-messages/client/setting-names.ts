import { ownValue } from '../../../core/own-key.js';

/** IR setting names -> the Anthropic Messages request fields a client sets them with (for warnings). */
const NAMES: Record<string, string> = {
  topK: 'top_k',
  topP: 'top_p',
  temperature: 'temperature',
  stop: 'stop_sequences',
  maxTokens: 'max_tokens',
  user: 'metadata.user_id',
  parallelToolCalls: 'tool_choice.disable_parallel_tool_use',
  messages: 'messages',
  tools: 'tools',
};

export function anthropicSettingName(setting: string, body: Record<string, unknown>): string {
  // Reasoning comes from `thinking`, or from `output_config.effort` alone.
  if (setting === 'reasoning') return body.thinking !== undefined ? 'thinking' : 'output_config.effort';
  return ownValue(NAMES, setting) ?? setting;
}
