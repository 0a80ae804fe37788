import { RdhError } from '../../../engine/index.js';

/**
 * A request `harness sim serve` refuses, with the HTTP status and OpenAI error type it is
 * answered with. It ends one request, never the server; it reaches the CLI only through a bug.
 */
export class SimRequestRefusedError extends RdhError {
  readonly code = 'sim_request_refused';
  constructor(
    readonly status: 400 | 404 | 405 | 413,
    readonly type: 'invalid_request_error' | 'not_found_error',
    message: string,
    /** The OpenAI error code, e.g. model_not_found. */
    readonly wireCode: string | null = null,
    /** The request field at fault, e.g. tools. */
    readonly param: string | null = null,
  ) {
    super(message);
  }
}

/** The server cannot listen where it was asked (the port is taken, or not ours to use). */
export class SimServerListenError extends RdhError {
  readonly code = 'sim_server_listen';
}
