import type { CapabilitiesPlan } from './fault-plan.js';
import { SimRequestRefusedError } from './serve-errors.js';
import type { ChatCompletionBody } from './wire-request.js';

/**
 * Refuses what a server without a capability refuses, with a 400 naming it, as real servers
 * do rather than ignoring the field: vLLM without a tool parser answers a request with tools
 * 400, Ollama answers "model does not support tools", and OpenAI answers response_format
 * json_object 400 for a model without JSON mode. A probe then sees the refusal, never a reply
 * that merely lacks the tool call.
 */
export function checkCapabilities(plan: CapabilitiesPlan | undefined, body: ChatCompletionBody): void {
  if (plan?.tools === false && body.tools?.length) {
    throw new SimRequestRefusedError(400, 'invalid_request_error', `SIMULATED: model ${JSON.stringify(body.model)} does not support tools (the fault plan's capabilities.tools is false)`, 'unsupported_parameter', 'tools');
  }
  const format = body.response_format?.type;
  if (plan?.json_mode === false && (format === 'json_object' || format === 'json_schema')) {
    throw new SimRequestRefusedError(400, 'invalid_request_error', `SIMULATED: response_format ${format} is not supported with model ${JSON.stringify(body.model)} (the fault plan's capabilities.json_mode is false)`, 'unsupported_parameter', 'response_format');
  }
}
