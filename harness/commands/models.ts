import { Command } from 'commander';
import { EXIT } from '../exit-codes.js';
import type { CliIo } from '../io.js';
import { loadProviderConfig, locateProviderConfig, ProviderConfigInvalidError } from '../providers/provider-config.js';
import { ModelsReport } from '../providers/model-probe-record.js';
import { probeProviders } from '../providers/model-probe-run.js';
import { renderModelsText } from '../providers/model-probe-table.js';

interface ModelsFlags {
  providers?: string;
  json: boolean;
}

/** `harness models`: what each configured provider serves and what its models can do. Writes nothing. */
export function modelsCommand(io: CliIo, setExit: (code: number) => void): Command {
  return new Command('models')
    .description("probe each configured provider: list GET /models, check every configured id is served, and try each model's latency, tool calls, JSON replies, prompt caching and rate-limit headers")
    .option('--providers <file>', 'provider configuration (default: $RDH_PROVIDERS)')
    .option('--json', 'print the record as one JSON object', false)
    .addHelpText(
      'after',
      [
        '',
        'Each served model gets five small calls: one token (latency), a tiny tool call,',
        'a response_format json_object reply, and a ~2,000-token prefix sent twice',
        '(cached_tokens on the second). It is a probe: each call has a deadline',
        '(call_deadline_s, default 30 s), and a 429 is retried once, never more. A probe',
        'that fails reads "error", never "yes". Families are never changed: an id whose',
        'vendor prefix disagrees with its declared family is flagged. Writes nothing.',
        'Exit 0: every configured id served and every probe answered; 6: an id not',
        'served or a key refused; 3: a provider unreachable or a probe failed; 2: bad',
        'input (the file, or an unset key variable).',
        '',
      ].join('\n'),
    )
    .action(async (flags: ModelsFlags) => {
      const location = locateProviderConfig(flags.providers);
      if (!location) throw new ProviderConfigInvalidError(['harness models needs a provider configuration: pass --providers FILE or set RDH_PROVIDERS (copy manifests/providers.example.yaml to start)']);
      const providers = await loadProviderConfig(location.file, { via: location.via });
      const report = ModelsReport.parse(await probeProviders(providers));
      io.out(flags.json ? `${JSON.stringify(report, null, 2)}\n` : renderModelsText(report, providers.shownAs));
      if (report.exit !== EXIT.ok) setExit(report.exit);
    });
}
