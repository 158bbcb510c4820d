/** /admin/v1/audit: who changed what, newest first. */
import { auditEntryOfRow, auditEntrySchema, listAudit } from '../audit/audit-log.js';
import { adminJson, listQuery, pageOf, timeRange, type AdminRoute } from './http.js';

export const AUDIT_FILTERS = ['actor', 'action', 'targetId', 'from', 'to'] as const;

export const AUDIT_ROUTES: readonly AdminRoute[] = [
  {
    method: 'GET',
    route: '/audit',
    doc: { summary: 'Every change, newest first (secrets never appear).', response: auditEntrySchema, list: { filters: AUDIT_FILTERS } },
    access: 'read',
    handler: async ({ ctx, control }) => {
      const q = listQuery(ctx.url, AUDIT_FILTERS);
      const f = q.filters;
      const { from, to } = timeRange(f.from, f.to);
      const rows = await listAudit(control.db, {
        limit: q.limit,
        ...(q.after ? { after: q.after } : {}),
        ...(f.actor ? { actor: f.actor } : {}),
        ...(f.action ? { action: f.action } : {}),
        ...(f.targetId ? { targetId: f.targetId } : {}),
        ...(from !== undefined ? { from } : {}),
        ...(to !== undefined ? { to } : {}),
      });
      const page = pageOf(rows, q.limit, (r) => r.id);
      return adminJson(ctx, { ...page, data: page.data.map(auditEntryOfRow) });
    },
  },
];
