// The care home's page: asks Prometheus (the origin that serves this page) about the badges every 15 s and
// shows one row per badge, the one that needs a person most first. Reads only Prometheus' HTTP API
// (/api/v1/query); writes nothing anywhere. Text from Prometheus goes into the page as text, never as HTML.
"use strict";
(() => {
  const REFRESH_MS = 15000;
  // How far back "since when" looks in Prometheus' own records, and at what resolution: a step no longer than
  // the scrape interval, or a badge seen at one scrape only could fall between two steps and never be seen.
  const HISTORY = "1d";
  const HISTORY_SECONDS = 86400;
  const STEP = "5s";
  // A badge read through node_exporter's textfile collector is not seen when its file has not changed for this
  // long: node_exporter keeps serving the last file of an agent that stopped.
  const TEXTFILE_STALE_SECONDS = 300;

  // The scrape job that holds the badges: `enbeacon` unless the address says ?job=NAME.
  const params = new URLSearchParams(window.location.search);
  const job = /^[A-Za-z0-9_.:-]+$/.test(params.get("job") || "") ? params.get("job") : "enbeacon";
  const J = `job="${job}"`;

  const tables = window.CAREHOME_WORDS;
  const preferred = navigator.languages && navigator.languages.length ? navigator.languages : [navigator.language];
  const language = pickLanguage(preferred);
  const words = tables[language];
  // Dates and times as the browser's own variant of that language writes them (en-GB: 24 hours, en-US: AM/PM).
  const locale = preferred.find((tag) => tag && tag.toLowerCase().split("-")[0] === language) || language;

  function pickLanguage(preferred) {
    for (const tag of preferred) {
      if (!tag) continue;
      const lower = tag.toLowerCase();
      if (tables[lower]) return lower;
      const primary = lower.split("-")[0];
      if (tables[primary]) return primary;
    }
    return "en";
  }

  const QUERIES = {
    up: `up{${J}}`,
    lastUp: `max_over_time((timestamp(up{${J}}) and up{${J}} == 1)[${HISTORY}:${STEP}])`,
    now: `{${J},__name__=~"enbeacon_(broadcasting|exposure_notification_enabled|controller_ready|storage_writable|clock_trusted`
      + `|exposures_unacknowledged|unacknowledged_exposure_timestamp_seconds|keysync_configured`
      + `|keysync_last_success_timestamp_seconds|keysync_max_age_seconds|start_time_seconds)"}`,
    lastOnAir: `max_over_time((timestamp(enbeacon_broadcasting{${J}}) and enbeacon_broadcasting{${J}} == 1)[${HISTORY}:${STEP}])`,
    label: `last_over_time(enbeacon_badge_info{${J}}[${HISTORY}])`,
    build: `last_over_time(enbeacon_build_info{${J}}[${HISTORY}])`,
    textfile: `node_textfile_mtime_seconds{${J},file=~"(.*/)?enbeacon[.]prom"}`,
  };

  // Most urgent first: what the sort and the row's colour follow.
  const RANK = { exposure: 0, offAir: 1, notSeen: 2, keysStale: 3, onAir: 4 };

  class Unreachable extends Error {}
  class Refused extends Error {}

  async function ask(expression) {
    let answer;
    try {
      answer = await fetch("../api/v1/query?query=" + encodeURIComponent(expression),
                           { cache: "no-store", credentials: "same-origin" });
    } catch (error) {
      throw new Unreachable(String(error));
    }
    let document;
    try {
      document = await answer.json();
    } catch (error) {
      throw new Unreachable(`HTTP ${answer.status}`);
    }
    if (document.status !== "success") throw new Refused(document.error || `HTTP ${answer.status}`);
    return document.data.result;
  }

  async function askAll() {
    const names = Object.keys(QUERIES);
    const results = await Promise.all(names.map((name) => ask(QUERIES[name])));
    const answers = {};
    names.forEach((name, i) => { answers[name] = results[i]; });
    return answers;
  }

  function number(sample) {
    const value = Number(sample.value[1]);
    return Number.isFinite(value) ? value : null;
  }

  // One record per target of the job, from every answer, keyed by instance.
  function badgesFrom(answers) {
    const badges = new Map();
    let now = Date.now() / 1000;
    for (const sample of answers.up) {
      now = sample.value[0];
      badges.set(sample.metric.instance, { instance: sample.metric.instance, up: sample.value[1] === "1", m: {} });
    }
    const each = (answer, take) => {
      for (const sample of answer) {
        const badge = badges.get(sample.metric.instance);
        if (badge) take(badge, sample);
      }
    };
    each(answers.lastUp, (b, s) => { b.lastUp = number(s); });
    each(answers.now, (b, s) => { b.m[s.metric.__name__.replace(/^enbeacon_/, "")] = number(s); });
    each(answers.lastOnAir, (b, s) => { b.lastOnAir = number(s); });
    each(answers.label, (b, s) => { b.label = s.metric.label || ""; });
    each(answers.build, (b, s) => { b.version = s.metric.version || ""; });
    each(answers.textfile, (b, s) => { b.textfileWritten = number(s); });
    return { now, badges: [...badges.values()] };
  }

  // What is wrong with a badge, most urgent first: [{kind, since, detail, action}], or one "onAir".
  function assess(b, now) {
    const within = (t) => t !== null && t !== undefined && now - t <= HISTORY_SECONDS;
    if (!b.up) return [{ kind: "notSeen", since: b.lastUp ?? null, action: words.actions.notSeen }];
    if (b.textfileWritten !== undefined && now - b.textfileWritten > TEXTFILE_STALE_SECONDS) {
      return [{ kind: "notSeen", since: b.textfileWritten, action: words.actions.notSeen }];
    }
    const m = b.m;
    // A target that answers without the badge's figures (node_exporter before the agent wrote its file, or a
    // wrong address): nothing says it is on air. When that began is not known.
    if (m.broadcasting === undefined) return [{ kind: "notSeen", since: undefined, action: words.actions.notSeen }];
    const problems = [];
    if (m.exposures_unacknowledged > 0) {
      problems.push({ kind: "exposure", since: m.unacknowledged_exposure_timestamp_seconds,
                      detail: words.exposures(m.exposures_unacknowledged), action: words.actions.exposure });
    }
    if (m.broadcasting === 0) {
      const reasons = [];
      if (m.exposure_notification_enabled === 0) reasons.push("enOff");
      if (m.controller_ready === 0) reasons.push("controllerLost");
      if (m.storage_writable === 0) reasons.push("storageFailing");
      if (m.clock_trusted === 0) reasons.push("clockUntrusted");
      if (reasons.length === 0) reasons.push("starting");
      // Off since it was last seen on air; never on air in the records: since the agent started, if it did then.
      const since = within(b.lastOnAir) ? b.lastOnAir : within(m.start_time_seconds) ? m.start_time_seconds : null;
      problems.push({ kind: "offAir", since, detail: reasons.map((r) => words.reasons[r]).join("; "),
                      action: reasons.map((r) => words.actions[r]).join(" ") });
    }
    if (m.keysync_configured === 1 && m.keysync_max_age_seconds > 0) {
      const from = m.keysync_last_success_timestamp_seconds ?? m.start_time_seconds;
      if (from !== undefined && from !== null && now - from > m.keysync_max_age_seconds) {
        problems.push({ kind: "keysStale", since: from + m.keysync_max_age_seconds,
                        detail: words.keysAge(words.duration(now - from), words.duration(m.keysync_max_age_seconds)),
                        action: words.actions.keysStale });
      }
    }
    if (problems.length === 0) problems.push({ kind: "onAir", action: words.actions.none });
    return problems.sort((a, b2) => RANK[a.kind] - RANK[b2.kind]);
  }

  function rows(badges, now) {
    const assessed = badges.map((b) => ({ badge: b, problems: assess(b, now), name: b.label || b.instance }));
    // The longest waiting first; no time known means over a day, the longest of all.
    const order = (r) => [RANK[r.problems[0].kind], r.problems[0].since ?? -Infinity];
    assessed.sort((x, y) => {
      const [rx, sx] = order(x), [ry, sy] = order(y);
      return rx - ry || sx - sy || x.name.localeCompare(y.name, language, { numeric: true });
    });
    return assessed;
  }

  // Times as staff read them: the hour today, with the day otherwise, and how long ago.
  const timeToday = new Intl.DateTimeFormat(locale, { hour: "2-digit", minute: "2-digit" });
  const timeOtherDay = new Intl.DateTimeFormat(locale, { weekday: "short", day: "numeric", month: "short",
                                                           hour: "2-digit", minute: "2-digit" });
  const clockTime = new Intl.DateTimeFormat(locale, { hour: "2-digit", minute: "2-digit", second: "2-digit" });

  // A moment as two lines: the time, then how long ago.
  function when(unixSeconds, now) {
    const e = element("div", undefined, "when");
    if (unixSeconds === null || unixSeconds === undefined) {
      e.appendChild(element("span", words.overADay, "time"));
      return e;
    }
    const date = new Date(unixSeconds * 1000);
    const sameDay = date.toDateString() === new Date(now * 1000).toDateString();
    e.appendChild(element("span", (sameDay ? timeToday : timeOtherDay).format(date), "time"));
    e.appendChild(element("span", words.ago(words.duration(Math.max(0, now - unixSeconds))), "ago"));
    return e;
  }

  function element(tag, text, className) {
    const e = document.createElement(tag);
    if (text !== undefined) e.textContent = text;
    if (className) e.className = className;
    return e;
  }

  function cell(column, parts) {
    const td = element("td");
    td.setAttribute("role", "cell");
    td.dataset.column = column;
    td.dataset.label = words.columns[column];
    for (const part of parts) td.appendChild(typeof part === "string" ? element("div", part) : part);
    return td;
  }

  function renderRow(row, now) {
    const b = row.badge, primary = row.problems[0].kind;
    const tr = element("tr", undefined, `state-${primary}`);
    tr.setAttribute("role", "row");
    tr.dataset.state = primary;
    const name = element("th", undefined, "badge");
    name.scope = "row";
    name.setAttribute("role", "rowheader");
    name.appendChild(element("div", row.name, "name"));
    if (b.label) name.appendChild(element("div", b.instance, "instance"));
    tr.appendChild(name);

    tr.appendChild(cell("state", row.problems.map((p) => {
      const line = element("div", undefined, "problem");
      line.appendChild(element("span", words.states[p.kind], `pill pill-${p.kind}`));
      if (p.detail) line.appendChild(element("span", p.detail, "detail"));
      return line;
    })));
    tr.appendChild(cell("since", row.problems.map((p) => (p.since === undefined ? "—" : when(p.since, now)))));
    tr.appendChild(cell("action", row.problems.map((p) => p.action)));

    const seen = b.up;
    const m = b.m;
    let keys;
    if (!seen) keys = "—";
    else if (m.keysync_configured !== 1) keys = words.noKeyServer;
    else if (m.keysync_last_success_timestamp_seconds) keys = when(m.keysync_last_success_timestamp_seconds, now);
    else keys = words.neverSynced;
    tr.appendChild(cell("keys", [keys]));
    const version = b.version ? (seen ? b.version : `${b.version} (${words.lastKnown})`) : words.unknown;
    tr.appendChild(cell("version", [version]));
    tr.appendChild(cell("uptime", [seen && m.start_time_seconds ? words.duration(Math.max(0, now - m.start_time_seconds)) : "—"]));
    return tr;
  }

  const $ = (id) => document.getElementById(id);
  let lastSuccess = null;

  function say(text) {
    $("message").textContent = text;
    $("message").hidden = !text;
  }

  function show(answers) {
    const { now, badges } = badgesFrom(answers);
    lastSuccess = new Date();
    $("updated").textContent = words.updated(clockTime.format(lastSuccess));
    document.body.classList.remove("outdated");
    if (badges.length === 0) {
      $("badges").hidden = true;
      $("summary").textContent = "";
      say(words.empty(job));
      return;
    }
    say("");
    const ordered = rows(badges, now);
    const body = $("rows");
    body.replaceChildren(...ordered.map((row) => renderRow(row, now)));
    $("badges").hidden = false;
    const needing = ordered.filter((r) => r.problems[0].kind !== "onAir").length;
    $("summary").textContent = words.summary(needing, ordered.length);
  }

  function fail(error) {
    // What was shown stays, marked as old; with nothing shown yet, only the sentence.
    document.body.classList.add("outdated");
    if (error instanceof Refused) say(words.refused(error.message));
    else say(words.unreachable(lastSuccess ? clockTime.format(lastSuccess) : null));
  }

  async function refresh() {
    try {
      show(await askAll());
    } catch (error) {
      fail(error);
    } finally {
      window.setTimeout(refresh, REFRESH_MS);
    }
  }

  document.documentElement.lang = language;
  document.title = words.title;
  $("heading").textContent = words.heading;
  $("caption").textContent = words.caption;
  for (const th of document.querySelectorAll("th[data-column]")) th.textContent = words.columns[th.dataset.column];
  say(words.loading);
  refresh();
})();
