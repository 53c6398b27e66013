/**
 * A minimal client for OpenAI-compatible `/v1/chat/completions`: a per-request timeout, retries
 * with exponential backoff (honouring Retry-After) on 429/5xx/timeouts/network errors, and token
 * usage accounting. The API key is only ever put in the Authorization header.
 */
import type { ChatMessage } from './prompts.js';

export interface ChatClientOptions {
  endpoint: string;
  apiKey?: string;
  timeoutMs?: number;
  retries?: number;
  backoffMs?: number;
  temperature?: number;
  maxTokens?: number;
}

export interface Usage {
  requests: number;
  retries: number;
  promptTokens: number;
  completionTokens: number;
  /** Failed attempts by cause (status code, "timeout", "network"). */
  failures: Record<string, number>;
}

export class ChatError extends Error {
  constructor(
    message: string,
    readonly kind: 'timeout' | 'http' | 'network' | 'aborted',
  ) {
    super(message);
  }
}

/** Accept a base URL (http://host, http://host/v1) or the full chat/completions URL. */
export function chatUrl(endpoint: string): string {
  const e = endpoint.replace(/\/+$/, '');
  if (/\/chat\/completions$/.test(e)) return e;
  if (/\/v\d+$/.test(e)) return `${e}/chat/completions`;
  return `${e}/v1/chat/completions`;
}

const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve) => {
    const t = setTimeout(resolve, ms);
    signal?.addEventListener(
      'abort',
      () => {
        clearTimeout(t);
        resolve();
      },
      { once: true },
    );
  });

export function emptyUsage(): Usage {
  return { requests: 0, retries: 0, promptTokens: 0, completionTokens: 0, failures: {} };
}

export class ChatClient {
  readonly url: string;
  constructor(private o: ChatClientOptions) {
    this.url = chatUrl(o.endpoint);
  }

  /** The reply text of one chat completion; throws ChatError when every attempt failed. */
  async complete(model: string, messages: ChatMessage[], usage: Usage, signal?: AbortSignal): Promise<string> {
    const retries = this.o.retries ?? 3;
    const base = this.o.backoffMs ?? 1000;
    let last: ChatError = new ChatError('no attempt made', 'network');
    for (let attempt = 0; attempt <= retries; attempt++) {
      if (signal?.aborted) throw new ChatError('aborted', 'aborted');
      if (attempt > 0) usage.retries++;
      let retryAfterMs = 0;
      try {
        return await this.once(model, messages, usage, signal);
      } catch (err) {
        if (!(err instanceof ChatError)) throw err;
        if (err.kind === 'aborted') throw err;
        last = err;
        const status = /^HTTP (\d+)/.exec(err.message)?.[1];
        const key = status ?? err.kind;
        usage.failures[key] = (usage.failures[key] ?? 0) + 1;
        // 4xx other than 408/409/429 will not get better by asking again
        if (status && /^4/.test(status) && !['408', '409', '429'].includes(status)) throw err;
        retryAfterMs = (err as ChatError & { retryAfterMs?: number }).retryAfterMs ?? 0;
      }
      if (attempt < retries) {
        const backoff = base * 2 ** attempt * (0.75 + 0.5 * Math.random());
        await sleep(Math.min(60_000, Math.max(backoff, retryAfterMs)), signal);
      }
    }
    throw last;
  }

  private async once(model: string, messages: ChatMessage[], usage: Usage, signal?: AbortSignal): Promise<string> {
    const ctl = new AbortController();
    const onAbort = () => ctl.abort();
    signal?.addEventListener('abort', onAbort, { once: true });
    const timer = setTimeout(() => ctl.abort(), this.o.timeoutMs ?? 60_000);
    usage.requests++;
    try {
      const headers: Record<string, string> = { 'content-type': 'application/json' };
      if (this.o.apiKey) headers.authorization = `Bearer ${this.o.apiKey}`;
      const body = { model, messages, temperature: this.o.temperature ?? 0.2, max_tokens: this.o.maxTokens ?? 1024 };
      const res = await fetch(this.url, { method: 'POST', headers, body: JSON.stringify(body), signal: ctl.signal });
      const text = await res.text();
      if (!res.ok) {
        const e = new ChatError(`HTTP ${res.status}`, 'http') as ChatError & { retryAfterMs?: number };
        const ra = Number(res.headers.get('retry-after'));
        if (Number.isFinite(ra) && ra > 0) e.retryAfterMs = ra * 1000;
        throw e;
      }
      let data: { choices?: { message?: { content?: string } }[]; usage?: { prompt_tokens?: number; completion_tokens?: number } };
      try {
        data = JSON.parse(text);
      } catch {
        throw new ChatError('HTTP 200 with a body that is not JSON', 'network');
      }
      usage.promptTokens += data.usage?.prompt_tokens ?? 0;
      usage.completionTokens += data.usage?.completion_tokens ?? 0;
      const content = data.choices?.[0]?.message?.content;
      if (typeof content !== 'string') throw new ChatError('reply without choices[0].message.content', 'network');
      return content;
    } catch (err) {
      if (err instanceof ChatError) throw err;
      if (signal?.aborted) throw new ChatError('aborted', 'aborted');
      if (ctl.signal.aborted) throw new ChatError(`no reply within ${this.o.timeoutMs ?? 60_000} ms`, 'timeout');
      throw new ChatError(`request failed: ${(err as Error).message}`, 'network');
    } finally {
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
    }
  }
}
