/** Models: providers, models and their deployments with circuit state (cooldown) on this instance, and prices. */
import { useState } from 'preact/hooks';
import { api, type ListPage } from '../api';
import { Badge, Pager, Status, TextField } from '../ui/controls';
import { fmtTime, fmtUsd } from '../ui/format';
import { useCursor, useLoad } from '../ui/hooks';
import type { PageProps } from './types';

interface Provider { id: string; type: string; chatProtocol: string; baseURL: string | null; models: number }
interface Model {
  id: string;
  capabilities: string[];
  fallbacks: string[];
  pricing: { inputPerMTok: number; outputPerMTok: number; perVideoSecond?: number } | null;
  deployments: Array<{ provider: string; upstreamModel: string; weight: number; state: 'closed' | 'open' | 'probe'; failures: number; cooldownUntil: string | null }>;
}

export function ModelsPage(_props: PageProps) {
  const providers = useLoad(() => api<ListPage<Provider>>('/providers', { query: { limit: 100 } }), []);
  const [search, setSearch] = useState('');
  const [applied, setApplied] = useState('');
  const paging = useCursor([applied]);
  const models = useLoad(() => api<ListPage<Model>>('/models', { query: { search: applied, limit: 50, after: paging.cursor } }), [applied, paging.cursor]);
  return (
    <>
      <section class="card">
        <h2>Providers</h2>
        <Status loading={providers.loading && !providers.data} error={providers.error} empty={providers.data?.data.length === 0} />
        {providers.data && providers.data.data.length > 0 && (
          <div class="table-wrap" tabIndex={0} role="region" aria-label="Providers table"><table>
            <thead><tr><th scope="col">Id</th><th scope="col">Type</th><th scope="col">Protocol</th><th scope="col">Base URL</th><th scope="col" class="num">Models</th></tr></thead>
            <tbody>
              {providers.data.data.map((p) => (
                <tr key={p.id}><td>{p.id}</td><td>{p.type}</td><td>{p.chatProtocol}</td><td>{p.baseURL ?? 'default'}</td><td class="num">{p.models}</td></tr>
              ))}
            </tbody>
          </table></div>
        )}
      </section>
      <section class="card">
        <h2>Models</h2>
        <form class="filters" role="search" aria-label="Find models" onSubmit={(e) => (e.preventDefault(), setApplied(search))}>
          <TextField label="Model id contains" value={search} onInput={setSearch} />
          <button type="submit">Search</button>
        </form>
        <Status loading={models.loading && !models.data} error={models.error} empty={models.data?.data.length === 0} emptyText="No configured models match." />
        {models.data && models.data.data.length > 0 && (
          <div class="table-wrap" tabIndex={0} role="region" aria-label="Models table">
            <table>
              <thead>
                <tr><th scope="col">Model</th><th scope="col">Capabilities</th><th scope="col">Price (input / output per M tokens)</th><th scope="col">Deployments</th><th scope="col">Fallbacks</th></tr>
              </thead>
              <tbody>
                {models.data.data.map((m) => (
                  <tr key={m.id}>
                    <td>{m.id}</td>
                    <td>{m.capabilities.join(', ')}</td>
                    <td>{m.pricing ? `${fmtUsd(m.pricing.inputPerMTok)} / ${fmtUsd(m.pricing.outputPerMTok)}${m.pricing.perVideoSecond !== undefined ? `; ${fmtUsd(m.pricing.perVideoSecond)} per video second` : ''}` : 'not priced'}</td>
                    <td>
                      <ul class="plain">
                        {m.deployments.map((d) => (
                          <li key={`${d.provider}/${d.upstreamModel}`}>
                            {d.provider}/{d.upstreamModel} (weight {d.weight}){' '}
                            <Badge tone={d.state === 'closed' ? 'ok' : d.state === 'probe' ? 'warn' : 'bad'}>{d.state === 'closed' ? 'healthy' : d.state === 'open' ? 'cooling down' : 'probing'}</Badge>
                            {d.cooldownUntil && ` until ${fmtTime(d.cooldownUntil)}`}
                            {d.failures > 0 && ` · ${d.failures} failures in a row`}
                          </li>
                        ))}
                      </ul>
                    </td>
                    <td>{m.fallbacks.join(', ') || '–'}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
        {models.data && <Pager label="Models" page={paging.page} hasMore={models.data.hasMore} nextCursor={models.data.nextCursor} onNext={paging.next} onPrev={paging.prev} />}
      </section>
    </>
  );
}
