// Every word of the care home's page in English. A home adds its own language with a file like this one
// (words-xx.js, the table under its language code) and a <script> line for it in index.html; the page picks
// the first of the browser's languages it has a table for, else English.
"use strict";
(window.CAREHOME_WORDS = window.CAREHOME_WORDS || {}).en = {
  title: "Badges",
  heading: "The residents' badges",
  caption: "Every badge, the one that needs someone most first",
  columns: {
    badge: "Badge",
    state: "State",
    since: "Since",
    action: "What to do",
    keys: "Keys last downloaded",
    version: "Version",
    uptime: "Running for",
  },
  states: {
    exposure: "Exposure notified, not acknowledged",
    offAir: "Off air",
    notSeen: "Not seen by Prometheus",
    keysStale: "Keys not downloaded",
    onAir: "On air",
  },
  reasons: {
    enOff: "Exposure Notification is switched off",
    controllerLost: "the Bluetooth controller is lost",
    storageFailing: "storage is failing",
    clockUntrusted: "the clock is not trusted",
    starting: "starting, or waiting for the controller",
  },
  actions: {
    exposure: "Acknowledge it: a short press of the badge's button, or enbeacon ctl indicator ack",
    enOff: "Switch it on if it should be: enbeacon ctl en on",
    controllerLost: "Check the badge's Bluetooth adapter; restart the badge",
    storageFailing: "Replace the badge's memory card, or free space on it",
    clockUntrusted: "Check the badge's network time, or set it: enbeacon ctl time set",
    starting: "Wait a minute; if it stays, restart the badge",
    notSeen: "Check that the badge has power and is on the network",
    keysStale: "Check the badge's network; enbeacon ctl sync says why",
    none: "Nothing to do",
  },
  exposures: (n) => (n === 1 ? "1 exposure" : `${n} exposures`),
  keysAge: (age, maximum) => `for ${age} (allowed: ${maximum})`,
  neverSynced: "none since it started",
  noKeyServer: "no key server set",
  lastKnown: "last known",
  unknown: "unknown",
  overADay: "over a day",
  duration: (seconds) => {
    const minutes = Math.floor(seconds / 60), hours = Math.floor(minutes / 60), days = Math.floor(hours / 24);
    if (days >= 2) return `${days} days`;
    const rest = minutes % 60 ? ` ${minutes % 60} min` : "";
    if (hours >= 1) return (hours === 1 ? "1 hour" : `${hours} hours`) + rest;
    if (minutes >= 1) return `${minutes} min`;
    return "under a minute";
  },
  ago: (age) => `${age} ago`,
  summary: (needing, total) =>
    total === 1
      ? needing === 0 ? "The badge is on air; nobody is needed." : "The badge needs someone."
      : needing === 0 ? `All ${total} badges are on air; nobody is needed.`
      : `${needing} of ${total} badges need someone.`,
  updated: (time) => `Updated at ${time}. The page refreshes itself every 15 seconds.`,
  loading: "Asking Prometheus for the badges…",
  empty: (job) => `Prometheus knows no badges. Add them to its scrape configuration (job ${job}), as Board/README.md shows.`,
  unreachable: (time) =>
    time
      ? `Prometheus cannot be reached. What is shown is from ${time}; the page keeps trying every 15 seconds.`
      : "Prometheus cannot be reached, so nothing is known about the badges. The page keeps trying every 15 seconds.",
  refused: (reason) => `Prometheus did not answer the page's question: ${reason}`,
};
