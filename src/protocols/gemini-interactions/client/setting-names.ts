import { ownValue } from '../../../core/own-key.js';

/** IR setting names -> the Interactions request fields a client sets them with (for warnings). */
const NAMES: Record<string, string> = {
  topK: 'generation_config',
  topP: 'generation_config.top_p',
  temperature: 'generation_config.temperature',
  stop: 'generation_config.stop_sequences',
  maxTokens: 'generation_config.max_output_tokens',
  presencePenalty: 'generation_config.presence_penalty',
  frequencyPenalty: 'generation_config.frequency_penalty',
  seed: 'generation_config.seed',
  reasoning: 'generation_config.thinking_level',
  toolChoice: 'generation_config.tool_choice',
  responseFormat: 'response_format',
  messages: 'input',
  system: 'system_instruction',
  tools: 'tools',
};

export function interactionsSettingName(setting: string): string {
  return ownValue(NAMES, setting) ?? setting;
}
