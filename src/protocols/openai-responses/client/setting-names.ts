import { ownValue } from '../../../core/own-key.js';

/** IR setting names -> the Responses request fields a client sets them with (for warnings). */
const NAMES: Record<string, string> = {
  maxTokens: 'max_output_tokens',
  topP: 'top_p',
  temperature: 'temperature',
  user: 'user',
  reasoning: 'reasoning.effort',
  parallelToolCalls: 'parallel_tool_calls',
  responseFormat: 'text.format',
  toolChoice: 'tool_choice',
  messages: 'input',
  system: 'instructions',
  tools: 'tools',
};

export function responsesSettingName(setting: string): string {
  return ownValue(NAMES, setting) ?? setting;
}
