import type { Page } from 'playwright-core';
import { brotliDecompressSync } from 'node:zlib';
import tar from 'tar-stream';

/**
 * Browser checks of a session's transcript as an auditor reads it (issue 21, "transcripts for
 * auditors"), for any recorded run: each returns the problems it found, [] when none, so a test
 * can expect([]) and show them all. Written as page scripts in strings, so the harness's types
 * need no DOM.
 */

/**
 * On the open sessions page, in the transcript that starts at the element `id` (a session's
 * place: session-pages.ts sessionAnchor): every message has an anchor (an id); each tool result
 * stands directly under its call and names that call's id, linking to it; the call list at the
 * top links to anchors that exist (on this page, or on another page of the session); and every
 * collapsed text is cut at a line boundary or a space, never inside a word.
 */
export async function auditTranscriptPage(page: Page, id: string): Promise<{ problems: string[]; calls: number; results: number; listed: number }> {
  return page.evaluate<{ problems: string[]; calls: number; results: number; listed: number }>(`(() => {
    const problems = [];
    const root = document.getElementById(${JSON.stringify(id)});
    if (!root) return { problems: ['no element with the id ' + ${JSON.stringify(id)}], calls: 0, results: 0, listed: 0 };
    const turns = Array.from(root.querySelectorAll('ol.conversation > li.turn'));
    for (const [i, t] of turns.entries()) if (!t.id) problems.push('message ' + (i + 1) + ' has no anchor');
    const ids = new Set(turns.map((t) => t.id));
    const idOf = (el) => { const m = /id (\\S+)/.exec(el.querySelector('.who').textContent.replace(/\\s+/g, ' ')); return m ? m[1].replace(/,$/, '') : null; };
    const results = turns.filter((t) => t.classList.contains('tool'));
    for (const r of results) {
      const link = r.querySelector('.who .muted a');
      const prev = r.previousElementSibling;
      if (!link) { problems.push(r.id + ': a tool result names no call it answers'); continue; }
      const target = link.getAttribute('href');
      if (target.startsWith('#')) {
        if (!prev || !prev.classList.contains('tool_call') || '#' + prev.id !== target) problems.push(r.id + ': not directly under its call ' + target);
        else if (idOf(prev) !== link.textContent.trim()) problems.push(r.id + ': names call id ' + link.textContent + ' under call ' + idOf(prev));
      }
    }
    const listed = Array.from(root.querySelectorAll('ol.calls a'));
    for (const a of listed) {
      const href = a.getAttribute('href');
      if (href.startsWith('#') && !ids.has(href.slice(1))) problems.push('the call list links to ' + href + ', which is not on the page');
    }
    for (const head of Array.from(root.querySelectorAll('pre.head'))) {
      const text = head.textContent;
      if (!/[\\n \\t]$/.test(text)) problems.push('a collapsed text is cut inside a line: ' + JSON.stringify(text.slice(-40)));
    }
    return { problems, calls: turns.filter((t) => t.classList.contains('tool_call')).length, results: results.length, listed: root.querySelectorAll('ol.calls > li').length };
  })()`);
}

/** The text files the transcript at the element `id` links (its long texts, each kept once): absolute URL and link text. */
export async function storedTextLinks(page: Page, id: string): Promise<Array<{ href: string; label: string }>> {
  return page.evaluate<Array<{ href: string; label: string }>>(`Array.from(document.getElementById(${JSON.stringify(id)}).querySelectorAll('.stored-link a')).map((a) => ({ href: a.href, label: a.textContent }))`);
}

/** The files of a run's transcripts download (a Brotli-compressed tar), by path. */
export async function archiveFiles(bytes: Uint8Array): Promise<Record<string, string>> {
  const files: Record<string, string> = {};
  const extract = tar.extract();
  extract.on('entry', (header, stream, next) => {
    const chunks: Buffer[] = [];
    stream.on('data', (c: Buffer) => chunks.push(c));
    stream.on('end', () => {
      files[header.name] = Buffer.concat(chunks).toString('utf8');
      next();
    });
  });
  await new Promise<void>((resolve, reject) => {
    extract.on('finish', resolve);
    extract.on('error', reject);
    extract.end(brotliDecompressSync(bytes));
  });
  return files;
}
