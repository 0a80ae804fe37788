/** Per-node session ids: `<node>/<role>/<n>`, the key shared by transcript and spend. */
export function sessionIds(nodeId: string): (role: string) => string {
  const counts = new Map<string, number>();
  return (role) => {
    const n = (counts.get(role) ?? 0) + 1;
    counts.set(role, n);
    return `${nodeId}/${role}/${n}`;
  };
}
