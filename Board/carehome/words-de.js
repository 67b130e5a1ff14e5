// Every word of the care home's page in German (the language of the largest national app). See words-en.js.
"use strict";
(window.CAREHOME_WORDS = window.CAREHOME_WORDS || {}).de = {
  title: "Badges",
  heading: "Die Badges der Bewohner",
  caption: "Alle Badges, das dringendste zuerst",
  columns: {
    badge: "Badge",
    state: "Zustand",
    since: "Seit",
    action: "Was zu tun ist",
    keys: "Schlüssel zuletzt geladen",
    version: "Version",
    uptime: "Läuft seit",
  },
  states: {
    exposure: "Begegnung gemeldet, nicht bestätigt",
    offAir: "Sendet nicht",
    notSeen: "Von Prometheus nicht erreicht",
    keysStale: "Schlüssel nicht geladen",
    onAir: "Sendet",
  },
  reasons: {
    enOff: "die Begegnungsmitteilung ist ausgeschaltet",
    controllerLost: "der Bluetooth-Controller fehlt",
    storageFailing: "der Speicher versagt",
    clockUntrusted: "die Uhrzeit ist nicht gesichert",
    starting: "startet oder wartet auf den Controller",
  },
  actions: {
    exposure: "Bestätigen: kurz auf den Knopf des Badges drücken, oder enbeacon ctl indicator ack",
    enOff: "Einschalten, wenn es senden soll: enbeacon ctl en on",
    controllerLost: "Den Bluetooth-Adapter des Badges prüfen; das Badge neu starten",
    storageFailing: "Die Speicherkarte des Badges ersetzen oder Platz schaffen",
    clockUntrusted: "Die Netzwerkzeit des Badges prüfen oder sie stellen: enbeacon ctl time set",
    starting: "Eine Minute warten; bleibt es so, das Badge neu starten",
    notSeen: "Prüfen, ob das Badge Strom hat und im Netzwerk ist",
    keysStale: "Das Netzwerk des Badges prüfen; enbeacon ctl sync sagt, warum",
    none: "Nichts zu tun",
  },
  exposures: (n) => (n === 1 ? "1 Begegnung" : `${n} Begegnungen`),
  keysAge: (age, maximum) => `seit ${age} (erlaubt: ${maximum})`,
  neverSynced: "keine seit dem Start",
  noKeyServer: "kein Schlüsselserver eingestellt",
  lastKnown: "zuletzt bekannt",
  unknown: "unbekannt",
  overADay: "über einem Tag",
  duration: (seconds) => {
    const minutes = Math.floor(seconds / 60), hours = Math.floor(minutes / 60), days = Math.floor(hours / 24);
    if (days >= 2) return `${days} Tagen`;
    const rest = minutes % 60 ? ` ${minutes % 60} Min.` : "";
    if (hours >= 1) return (hours === 1 ? "1 Stunde" : `${hours} Stunden`) + rest;
    if (minutes >= 1) return `${minutes} Min.`;
    return "weniger als einer Minute";
  },
  ago: (age) => `vor ${age}`,
  summary: (needing, total) =>
    total === 1
      ? needing === 0 ? "Das Badge sendet; niemand wird gebraucht." : "Das Badge braucht jemanden."
      : needing === 0 ? `Alle ${total} Badges senden; niemand wird gebraucht.`
      : `${needing} von ${total} Badges brauchen jemanden.`,
  updated: (time) => `Aktualisiert um ${time}. Die Seite aktualisiert sich alle 15 Sekunden.`,
  loading: "Prometheus wird nach den Badges gefragt …",
  empty: (job) => `Prometheus kennt keine Badges. Tragen Sie sie in seine Scrape-Konfiguration ein (Job ${job}), wie Board/README.md zeigt.`,
  unreachable: (time) =>
    time
      ? `Prometheus ist nicht erreichbar. Angezeigt wird der Stand von ${time}; die Seite versucht es alle 15 Sekunden wieder.`
      : "Prometheus ist nicht erreichbar, daher ist über die Badges nichts bekannt. Die Seite versucht es alle 15 Sekunden wieder.",
  refused: (reason) => `Prometheus hat die Frage der Seite nicht beantwortet: ${reason}`,
};
