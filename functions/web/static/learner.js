/* The learner app: start a round, watch it being generated, answer one item per screen, see the
   grade and explanation, report a problem, read the round summary and every answer, go on to
   round 2. The server is the source of truth: on load the page asks it for the learner's sessions
   (GET /sessions) and continues where they left off, on any tab or device. Each click makes at
   most one API request (the progress screen polls while the round is generated; the start and
   summary screens also read the learner's level, GET /learners/me/ability). Every word comes from
   i18n.js. */
"use strict";

/* The "Your level" panel's words and chart, as pure functions of the API's data (no DOM), so a
   test can run them outside a browser. The chart is a tree {tag, attrs, children} that
   SleaAbility.render turns into SVG nodes (attributes and classes only: the CSP forbids inline
   styles). */
const SleaAbility = (() => {
  // The formula of slea.measurement.scale.answers_to_precision (PRECISE_SE, INFORMATION_PER_ANSWER):
  // an estimate is "precise" at a standard error of 0.3 logits (mirtCAT's default stopping rule).
  // Precisions (1/SE²) add up and each well-targeted answer adds about 0.2 (P(1-P) = 0.21 at the
  // 70% success target, a little less for choice items), so n more answers take the SE from se to
  // 1/sqrt(1/se² + 0.2·n): n = ceil((1/0.3² - 1/se²) / 0.2).
  const TARGET_SE = 0.3;
  const ANSWER_INFORMATION = 0.2;
  const Z95 = 1.96;
  const SVG = "http://www.w3.org/2000/svg";
  const WIDTH = 320;
  const HEIGHT = 150;
  const PAD = { left: 28, right: 8, top: 8, bottom: 22 };
  const MAX_POINTS = 60; // the latest answers: a longer history would be a smear at this width
  const TREND_ANSWERS = 5; // the trend: the estimate now against the one this many answers ago
  const STEADY = 0.2; // logits: a smaller change is said as "steady" (well inside one SE)

  function answersToPrecision(se, targetSe = TARGET_SE, perAnswer = ANSWER_INFORMATION) {
    if (!(se > targetSe)) return 0;
    return Math.ceil((1 / targetSe ** 2 - 1 / se ** 2) / perAnswer);
  }

  const fixed = (value) => (Math.abs(value) < 0.05 ? "0.0" : value.toFixed(1)).replace("-", "−");
  const number = (printed) => Number(printed.replace("−", "-"));
  const { t, plural, named } = SleaI18n; // the words in the learner's language (i18n.js)

  /* Sentences for one entry of `abilities`. The estimate is said as its 95% range only, with the
     best estimate inside it: one kind of number, no unnamed "±" that is a third of the range. */
  function describe(ability) {
    const more = answersToPrecision(ability.se);
    const category = named("category", ability.category);
    const level = named("level.name", ability.level);
    const range = rangeOf(ability);
    return {
      heading: t("level.heading", { category, level }),
      category,
      level,
      range,
      estimate: t("level.estimate", {
        answers: plural("level.answers", ability.answers), low: range.low, high: range.high, theta: fixed(ability.theta),
      }),
      // "precise": a standard error of TARGET_SE, said as the width of its 95% range (1.2)
      precision: more ? plural("level.more", more, { width: (2 * Z95 * TARGET_SE).toFixed(1) }) : t("level.precise"),
    };
  }

  /* The 95% range as printed (one decimal), the numbers a test compares with the API's. */
  const rangeOf = (point) => ({ low: fixed(point.theta - Z95 * point.se), high: fixed(point.theta + Z95 * point.se) });

  /* The history of one category, one point per answer (the API numbers them: `answers`), oldest
     first, the latest MAX_POINTS. */
  function pointsOf(history, category) {
    return history
      .filter((point) => point.category === category)
      .sort((a, b) => a.answers - b.answers || (a.at < b.at ? -1 : a.at > b.at ? 1 : 0))
      .slice(-MAX_POINTS);
  }

  /* The trend compares like with like: the estimate now with the estimate TREND_ANSWERS answers
     ago (or at the first answer drawn, if fewer), and says over how many answers. */
  function trend(points) {
    if (points.length < 2) return null;
    const last = points[points.length - 1];
    const then = points[Math.max(0, points.length - 1 - TREND_ANSWERS)];
    const count = last.answers - then.answers;
    // From the numbers as printed, so the words add up: "up 0.6 ... from −1.6 to −1.0".
    const [from, to] = [fixed(then.theta), fixed(last.theta)];
    const change = Math.round((number(to) - number(from)) * 10) / 10;
    // "Steady" only where the two printed numbers are the same; a move inside the steady band is
    // said as slight, with its size, so the words never contradict the numbers beside them.
    const slight = change > 0 ? "slightly_up" : "slightly_down";
    const direction = change === 0 ? "steady" : Math.abs(change) < STEADY ? slight : change > 0 ? "up" : "down";
    return { direction, count, change, text: plural(`level.trend.${direction}`, count, { change: Math.abs(change).toFixed(1), from, to }) };
  }

  const round2 = (value) => Math.round(value * 100) / 100;

  /* The SVG tree of one category's history (one point per answer): the estimate as a line, its
     95% interval as a shaded band, a grid line per logit, the first and last answer's number on
     the axis (readable however many answers one day holds); an accessible name and description. */
  function chart(history, category, id = "chart") {
    const points = pointsOf(history, category);
    if (!points.length) return null;
    const lows = points.map((p) => p.theta - Z95 * p.se);
    const highs = points.map((p) => p.theta + Z95 * p.se);
    let bottom = Math.floor(Math.min(...lows));
    let top = Math.ceil(Math.max(...highs));
    if (top - bottom < 2) [bottom, top] = [bottom - 1, top + 1];
    const plotWidth = WIDTH - PAD.left - PAD.right;
    const plotHeight = HEIGHT - PAD.top - PAD.bottom;
    const x = (i) => round2(PAD.left + (points.length === 1 ? plotWidth / 2 : (i * plotWidth) / (points.length - 1)));
    const y = (theta) => round2(PAD.top + ((top - theta) * plotHeight) / (top - bottom));
    const grid = [];
    for (let tick = bottom; tick <= top; tick += Math.max(1, Math.ceil((top - bottom) / 6))) {
      grid.push({ tag: "line", attrs: { class: tick === 0 ? "axis" : "grid", x1: PAD.left, x2: WIDTH - PAD.right, y1: y(tick), y2: y(tick) } });
      grid.push({ tag: "text", attrs: { class: "tick", x: PAD.left - 4, y: y(tick) + 3, "text-anchor": "end" }, text: fixed(tick) });
    }
    const upper = points.map((p, i) => `${x(i)},${y(highs[i])}`);
    const lower = points.map((p, i) => `${x(i)},${y(lows[i])}`).reverse();
    const first = points[0];
    const last = points[points.length - 1];
    const axis = (point) => t("level.axis", { number: point.answers });
    const labels =
      points.length === 1
        ? [{ tag: "text", attrs: { class: "tick", x: x(0), y: HEIGHT - 6, "text-anchor": "middle" }, text: axis(first) }]
        : [
          { tag: "text", attrs: { class: "tick", x: PAD.left, y: HEIGHT - 6 }, text: axis(first) },
          { tag: "text", attrs: { class: "tick", x: WIDTH - PAD.right, y: HEIGHT - 6, "text-anchor": "end" }, text: axis(last) },
        ];
    // Named by the answers drawn: a later re-estimate (a review, items counted as wrong) is a point, not an answer.
    const answered = new Set(points.filter((p) => p.answers > 0).map((p) => p.answers)).size;
    const name = plural("level.chart", answered, { category: named("category", category) });
    const moved = trend(points);
    const now = rangeOf(last);
    const summary = (moved ? `${moved.text} ` : "") + t("level.chart.summary", { low: now.low, high: now.high });
    return {
      tag: "svg",
      attrs: {
        xmlns: SVG,
        class: "ability-chart",
        viewBox: `0 0 ${WIDTH} ${HEIGHT}`,
        role: "img",
        "aria-labelledby": `${id}-title ${id}-desc`,
      },
      children: [
        { tag: "title", attrs: { id: `${id}-title` }, text: name },
        { tag: "desc", attrs: { id: `${id}-desc` }, text: summary },
        { tag: "g", attrs: { "aria-hidden": "true" }, children: grid },
        { tag: "path", attrs: { class: "band", d: `M${[...upper, ...lower].join("L")}Z` } },
        { tag: "polyline", attrs: { class: "estimate", points: points.map((p, i) => `${x(i)},${y(p.theta)}`).join(" ") } },
        ...points.map((p, i) => ({ tag: "circle", attrs: { class: "estimate", cx: x(i), cy: y(p.theta), r: 2.5 } })),
        ...labels,
      ],
      points,
      trend: moved,
      summary: `${name}. ${summary}`,
    };
  }

  /* The tree as DOM nodes (SVG namespace). */
  function render(node) {
    const element = document.createElementNS(SVG, node.tag);
    for (const [name, value] of Object.entries(node.attrs || {})) if (name !== "xmlns") element.setAttribute(name, String(value));
    if (node.text !== undefined) element.textContent = node.text;
    for (const child of node.children || []) element.append(render(child));
    return element;
  }

  return { TARGET_SE, ANSWER_INFORMATION, TREND_ANSWERS, answersToPrecision, describe, chart, render, fixed, rangeOf };
})();

(() => {
  const { $, el, api, reportError, clearError } = Slea;
  const { t, named } = SleaI18n;
  const POLL_MS = 700;
  // Characters that show nothing (as slea.contracts.scoring.AnswerText): an answer of only these is empty.
  const INVISIBLE_ONLY = /^[\p{C}\p{Z}\s\u115F\u1160\u3164\uFFA0]*$/u;
  const state = { sessionId: null, round: 1, category: "technical", count: 5, questions: [], index: 0, selected: null };
  let userKey = "";
  const PANEL_SCREENS = ["start", "summary"]; // the level panel is shown with these screens
  let abilityKnown = false; // the level panel has something to show
  // Feedback that earns its space: the note that what would answer an open item is held back is
  // said once per round (the first feedback that carries it), not after every answer.
  const PASS_MARK = 80; // slea.constants.HIGH_SCORE_THRESHOLD: a score from this is correct
  const noteSaidFor = new Set(); // "session#round" whose held-back note the learner has been shown
  const scoreWords = (key, score, type) =>
    t(key, { score }) + (type === "short_answer" || (score > 0 && score < 100) ? t("feedback.pass_mark", { mark: PASS_MARK }) : "");
  let ability = null; // the panel's last data, drawn again when the language changes
  let redraw = () => {}; // the current screen's words, drawn again when the language changes
  // The placement test of the current session, if it is one (POST /sessions/{id}/next).
  const placement = { on: false, progress: null, wait: 0, timer: null };

  /* One screen at a time; the level panel goes with the start and summary screens. Each screen is an entry
     of the browser's history (its view in history.state and the address's hash), so Back and
     Forward move between screens and a reload shows the same one again (render). */
  function show(id, view = {}) {
    Slea.show(id);
    $("#ability").hidden = !PANEL_SCREENS.includes(id) || !abilityKnown;
    remember({ s: state.sessionId, screen: id, round: state.round, ...(placement.on ? { mode: "placement" } : {}), ...view });
  }

  // ------------------------------------------------------------------ history
  let replaceNext = false; // the next screen takes the place of the current entry (Back, a reload)

  /* A new history entry for a new screen; the same screen (a redraw) or one that stands in for a
     passing one (a round's progress, a question once answered) replaces the current entry. */
  function remember(view) {
    const current = history.state;
    const url = `#${new URLSearchParams(Object.entries(view).filter(([, value]) => value !== null && value !== undefined))}`;
    const same = current && current.screen === view.screen && current.s === view.s && current.q === view.q && current.round === view.round;
    if (replaceNext || !current || !current.screen || same || current.screen === "progress") history.replaceState(view, "", url);
    else history.pushState(view, "", url);
    replaceNext = false;
  }

  /* The view in the address (a reload keeps history.state; a copied address has only the hash). */
  function viewInAddress() {
    if (history.state && history.state.screen) return history.state;
    const hash = new URLSearchParams(location.hash.slice(1));
    if (!hash.get("screen")) return null;
    return { s: hash.get("s"), screen: hash.get("screen"), round: Number(hash.get("round")) || 1, q: hash.get("q") || undefined, mode: hash.get("mode") || undefined };
  }

  /* Draws the screen of a view again from the server's record (Back, Forward, a reload). */
  async function render(view) {
    replaceNext = true;
    try {
      if (view.s && view.s !== state.sessionId) useSession(view.s);
      if (view.s) placement.on = view.mode === "placement";
      state.round = Number(view.round) || state.round;
      if (placement.on && view.screen !== "start") return await placementStep(); // its server record says where it is
      if (view.screen === "progress") {
        showProgress();
        return await watchRound();
      }
      if (view.screen === "summary") return await showSummary();
      if (view.screen === "question" || view.screen === "feedback") return await showItem(view);
      return showStart();
    } finally {
      replaceNext = false;
    }
  }

  /* A question's screen, or its feedback once it is graded (the attempt holds the whole grading).
     A question view of a question answered since (elsewhere) goes on to the next unanswered one. */
  async function showItem(view) {
    const listed = await api("GET", `/sessions/${state.sessionId}/questions`);
    state.questions = listed.questions.filter((q) => q.round === state.round);
    state.index = state.questions.findIndex((q) => q.question_id === view.q);
    const question = state.questions[state.index];
    if (!question || (question.answered && view.screen === "question")) return loadQuestions();
    if (!question.answered) return showQuestion();
    if (!(await showRecorded(question))) showQuestion();
  }

  /* The recorded grading of an answered question as its feedback screen (GET .../attempts). */
  async function showRecorded(question) {
    const listed = await api("GET", `/sessions/${state.sessionId}/attempts`);
    const attempt = listed.attempts.filter((a) => a.question_id === question.question_id).pop();
    if (!attempt) return false;
    question.answered = true;
    showFeedback(attempt, question, answerText(attempt));
    return true;
  }

  // ------------------------------------------------------------------ language
  const languageKey = () => (userKey ? `${SleaI18n.CHOICE_KEY}.${userKey}` : SleaI18n.CHOICE_KEY);

  function useLanguage(language) {
    $("#language").value = SleaI18n.set(language);
    const name = $("#who").dataset.name;
    if (name) $("#who").textContent = t("signed_in_as", { name });
    redraw();
    if (ability) drawAbility(ability);
  }

  // ------------------------------------------------------------------ resuming
  const sessionKey = () => `slea.session.${userKey}`;

  function useSession(sessionId) {
    state.sessionId = sessionId;
    sessionStorage.setItem(sessionKey(), sessionId); // this tab's current session
  }

  async function newSession() {
    if (state.sessionId && !(await leaveConfirmed())) return;
    useSession((await api("POST", "/sessions")).session_id);
    placement.on = false;
    state.round = 1;
    showStart();
  }

  /* Moving on counts the questions left open as wrong: the learner says so first, told how many. */
  async function leaveConfirmed() {
    const listed = await api("GET", `/sessions/${state.sessionId}/questions`);
    const open = listed.questions.filter((q) => !q.answered).length;
    return !open || window.confirm(SleaI18n.plural("leave.confirm", open));
  }

  /* Continue where the learner left off, from the server's record (any tab or device): the
     current round at its first unanswered question, its progress while it is generated, or the
     summary of a finished round. A learner with no session gets one. */
  async function resume() {
    const listed = await api("GET", "/sessions?limit=1");
    useLanguage(localStorage.getItem(languageKey()) || listed.language || SleaI18n.current());
    const newest = listed.sessions[0];
    if (!newest) return newSession();
    useSession(newest.session_id);
    placement.on = newest.purpose === "placement";
    const wanted = viewInAddress();
    if (wanted && wanted.s === newest.session_id) {
      try {
        return await render(wanted); // a reload: the screen it was on
      } catch (error) {
        reportError(error); // then where the server's record says
      }
    }
    if (placement.on) return placementStep(); // its next question, or its result
    const current = newest.rounds[newest.rounds.length - 1];
    state.round = current ? current.round : 1;
    if (!current || current.status === "FAILED") return showStart();
    if (current.status === "RUNNING") {
      showProgress();
      return watchRound();
    }
    if (current.finished) return showSummary();
    return loadQuestions();
  }

  const countKey = () => `slea.count.${userKey}`;

  /* The round length the learner chose last (this browser), for the next round too. */
  function rememberedCount() {
    const count = Number(localStorage.getItem(countKey()));
    return Number.isInteger(count) && count >= 1 && count <= 20 ? count : null;
  }

  function showStart() {
    if (rememberedCount()) $("#count").value = String(rememberedCount());
    redraw = () => {
      $("#start-button").textContent = t("start.round", { round: state.round });
    };
    redraw();
    show("start");
    loadAbility();
  }

  // ------------------------------------------------------------------ the level panel
  /* GET /learners/me/ability. The panel is extra: with no estimate yet (404, an empty list) or an
     error it stays hidden and the page works as before. */
  async function loadAbility() {
    let measured;
    try {
      measured = await api("GET", "/learners/me/ability");
    } catch {
      measured = null;
    }
    drawAbility(measured);
  }

  function drawAbility(measured) {
    ability = measured;
    const abilities = (measured && measured.abilities) || [];
    abilityKnown = abilities.length > 0;
    $("#ability-list").replaceChildren(...abilities.map((entry) => abilityBlock(entry, measured.history || [])));
    $("#ability").hidden = !abilityKnown || PANEL_SCREENS.every((screen) => $(`#${screen}`).hidden);
  }

  /* Items left unanswered when their round was over, counted as wrong: one line for the level
     panel and the summary (null when there are none). */
  function skippedLine(entry) {
    return entry.skipped ? el("li", { class: "skipped", text: SleaI18n.plural("level.skipped", entry.skipped) }) : null;
  }

  /* A row of the ability table: an answer's estimate as it was stored then (it never changes); a
     later re-estimate (a reviewer's change of a grade, questions left unanswered counted as wrong)
     is a row of its own that says why. */
  function rowLabel(point) {
    if (point.event === "review") return t("level.row.review", { number: point.answers });
    if (point.event === "skipped") return t(point.answers ? "level.row.skipped" : "level.row.skipped_first", { number: point.answers });
    return t("level.row.answer", { number: point.answers });
  }

  function abilityBlock(entry, history) {
    const words = SleaAbility.describe(entry);
    const id = `ability-${entry.category.replace(/[^a-z0-9_-]/gi, "")}`;
    const drawn = SleaAbility.chart(history, entry.category, id);
    // Short facts, one a line (the trend, how far from precise; room for more).
    const facts = el("ul", { class: "ability-facts" });
    if (drawn && drawn.trend) facts.append(el("li", { class: "ability-trend", text: drawn.trend.text }));
    facts.append(el("li", { class: "ability-precision", text: words.precision }));
    if (entry.skipped) facts.append(skippedLine(entry));
    // Grades waiting for review: counted provisionally, the level may move when they are reviewed.
    if (entry.pending_review) facts.append(el("li", { class: "ability-pending", text: SleaI18n.plural("level.pending", entry.pending_review) }));
    const block = el("div", { class: "ability", "data-category": entry.category },
      el("h3", { text: words.heading }),
      el("p", { class: "ability-estimate", text: words.estimate }),
      facts);
    if (!drawn) return block;
    const { fixed, rangeOf } = SleaAbility;
    const rows = drawn.points.map((point) =>
      el("tr", {}, el("td", { text: rowLabel(point) }), el("td", { text: String(point.at).slice(0, 16).replace("T", " ") }),
        el("td", { text: fixed(point.theta) }), el("td", { text: t("level.range_value", rangeOf(point)) })));
    block.append(
      el("figure", {}, SleaAbility.render(drawn)),
      // The chart's numbers for screen readers (a hidden wrapper: a table itself ignores overflow).
      el("div", { class: "visually-hidden" }, el("table", {},
        el("caption", { text: drawn.summary }),
        el("thead", {}, el("tr", {}, el("th", { scope: "col", text: t("level.answer") }), el("th", { scope: "col", text: t("level.when") }),
          el("th", { scope: "col", text: t("level.ability") }), el("th", { scope: "col", text: t("level.range") }))),
        el("tbody", {}, rows))),
    );
    return block;
  }

  // ------------------------------------------------------------------ starting and generating
  async function startRound() {
    clearError();
    const buttons = ["#start-button", "#next-round", "#retry-round"].map((selector) => $(selector));
    if (buttons.some((button) => button.disabled)) return; // its request is in flight
    state.count = rememberedCount() || state.count;
    const request = { round: state.round, category: state.category, count: state.count };
    for (const button of buttons) button.disabled = true;
    try {
      if (!state.sessionId || placement.on) { // the listing had failed, or the session is a placement test
        useSession((await api("POST", "/sessions")).session_id);
        placement.on = false;
      }
      await api("POST", `/sessions/${state.sessionId}/rounds`, request);
    } catch (error) {
      // Already started (e.g. in another tab while it was generating): follow it instead.
      if (!(error instanceof Slea.ApiError && error.code === "ROUND_ALREADY_STARTED")) throw error;
    } finally {
      for (const button of buttons) button.disabled = false;
    }
    showProgress();
    await watchRound();
  }

  function showProgress() {
    $("#retry-round").hidden = true;
    redraw = () => {
      $("#progress-title").textContent = t("progress.round", { round: state.round });
    };
    redraw();
    $("#progress-bar").removeAttribute("value");
    $("#progress-text").textContent = t("progress.starting");
    show("progress");
  }

  async function watchRound() {
    for (;;) {
      if ($("#progress").hidden) return; // the learner went elsewhere (Back)
      const status = await api("GET", `/sessions/${state.sessionId}/rounds/${state.round}`);
      if ($("#progress").hidden) return;
      const bar = $("#progress-bar");
      bar.max = status.requested || 1;
      bar.value = status.saved;
      const steps = [t("progress.ready", { saved: status.saved, requested: status.requested })];
      if (status.generated !== null) steps.push(t("progress.checked", { generated: status.generated, valid: status.valid ?? "?" }));
      $("#progress-text").textContent = steps.join(" · ");
      if (status.status === "SUCCEEDED") {
        // Fewer questions than asked: the question screen says how many came and why.
        state.shortfall = status.shortfall_reason ? { ...status, round: state.round } : null;
        return loadQuestions(status.question_ids);
      }
      if (status.status === "FAILED") {
        $("#progress-title").textContent = t("progress.failed", { round: state.round });
        $("#progress-text").textContent = status.error || t("progress.failed_text");
        $("#retry-round").hidden = false;
        $("#retry-round").focus();
        return;
      }
      await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    }
  }

  /* The round's questions, continuing at the first one not answered yet (never replaying one). */
  async function loadQuestions(ids) {
    const listed = await api("GET", `/sessions/${state.sessionId}/questions`);
    const wanted = new Set(ids || []);
    state.questions = listed.questions.filter((q) => q.round === state.round && (!ids || wanted.has(q.question_id)));
    if (!state.questions.length) {
      reportError(t("round.empty"));
      return showStart();
    }
    state.index = state.questions.findIndex((q) => !q.answered);
    if (state.index < 0) return showSummary();
    showQuestion();
  }

  // ------------------------------------------------------------------ one item per screen
  const letter = (choice) => (/^([A-Za-z])[).:]\s/.exec(choice) || [])[1];
  const answerMax = () => Number($("#short-answer").dataset.max);
  const characters = (text) => [...text].length; // code points, as the server counts them

  function setAnswerMessage(text) {
    $("#answer-message").textContent = text || "";
    $("#answer-message").hidden = !text;
  }

  /* The limit under the box; past it, a message (the text is kept, never cut). */
  function checkLength() {
    const used = characters($("#short-answer").value);
    const over = used > answerMax();
    $("#answer-limit").textContent = t("question.limit", { used, max: answerMax() });
    $("#short-answer").setAttribute("aria-invalid", String(over));
    setAnswerMessage(over ? t("question.too_long", { used, max: answerMax() }) : "");
    return !over;
  }

  /* A difficulty on its 1-10 scale with the level its label stands for: "4 of 10: beginner" (the
     level word from the API, measurement/scale.py's bands; the bare number when it has none). */
  const difficultyWords = (difficulty, level) =>
    level ? t("difficulty.words", { difficulty, level: named("level.name", level) }) : String(difficulty);

  function showQuestion() {
    const question = state.questions[state.index];
    state.selected = null;
    redraw = () => {
      $("#question-title").textContent = t("question.title", { number: state.index + 1, total: state.questions.length });
      $("#question-meta").textContent = t("question.meta", {
        round: state.round, category: named("category", question.category), difficulty: difficultyWords(question.difficulty, question.difficulty_level),
      });
      const short = state.shortfall && state.shortfall.round === state.round ? state.shortfall : null;
      $("#round-shortfall").hidden = !short;
      $("#round-shortfall").textContent = short
        ? t("round.shortfall", { delivered: short.delivered, requested: short.requested, why: t(`round.shortfall.${short.shortfall_reason}`) })
        : "";
      if (!$("#short").hidden) checkLength();
      if (placement.on) drawPlacementQuestion(question);
    };
    $("#placement-progress").hidden = !placement.on;
    $("#resume").hidden = placement.on; // a placement test has no round summary
    $("#stem").textContent = question.stem;
    const choices = $("#choices");
    choices.replaceChildren();
    const isShort = question.type === "short_answer" || !(question.choices || []).length;
    $("#short").hidden = !isShort;
    $("#short-answer").value = "";
    setAnswerMessage("");
    for (const choice of isShort ? [] : question.choices) {
      const answer = question.type === "multiple_choice" ? letter(choice) || choice : choice;
      choices.append(
        el("button", {
          type: "button",
          class: "choice",
          "aria-pressed": "false",
          text: choice,
          onclick: (event) => {
            state.selected = answer;
            state.selectedText = choice;
            setAnswerMessage(""); // its cause is gone
            for (const other of choices.children) other.setAttribute("aria-pressed", String(other === event.currentTarget));
          },
        }),
      );
    }
    redraw();
    show("question", { q: question.question_id });
  }

  async function submitAnswer(event) {
    event.preventDefault();
    clearError();
    const question = state.questions[state.index];
    const short = !$("#short").hidden;
    const answer = short ? $("#short-answer").value.trim() : state.selected;
    if (short && !checkLength()) return $("#short-answer").focus();
    if (!answer || INVISIBLE_ONLY.test(answer)) {
      return setAnswerMessage(t(short ? "question.write_first" : "question.choose_first"));
    }
    if ($("#submit-answer").disabled) return; // its request is in flight
    $("#submit-answer").disabled = true;
    try {
      const result = await api("POST", `/sessions/${state.sessionId}/answers`, { question_id: question.question_id, user_answer: answer });
      question.answered = true;
      replaceNext = true; // the question's entry becomes its feedback's: Back never offers it again
      showFeedback(result, question, short ? answer : state.selectedText);
    } catch (error) {
      if (error.code === "QUESTION_SKIPPED") { // its round was over (another tab moved on): counted as wrong
        question.answered = true;
        await nextQuestion();
        return reportError(t("feedback.skipped_meanwhile"));
      }
      if (error.code === "QUESTION_RETIRED") { // a reviewer withdrew it meanwhile: out of the round, never counted
        state.questions.splice(state.index, 1);
        state.index -= 1;
        nextQuestion();
        return reportError(t("feedback.retired_meanwhile"));
      }
      if (error.code !== "ALREADY_ANSWERED") throw error;
      // Answered in another tab or on another device: the answer recorded there, in words.
      replaceNext = true;
      if (!(await showRecorded(question))) return nextQuestion();
      reportError(t("feedback.answered_elsewhere"));
    } finally {
      replaceNext = false;
      $("#submit-answer").disabled = false;
    }
  }


  // ------------------------------------------------------------------ the placement test
  /* "Find my level": a placement test of the chosen category (POST /sessions {purpose:
     "placement"}), one question at a time (POST /sessions/{id}/next: the same question until it
     is answered, then the next, then the result). The question, the answer and its feedback are
     the round's screens; the progress line says what the stopping rule waits for. While the bank
     is empty (503 NO_QUESTION_YET) the page waits, asking again with a growing delay. */
  const WAIT_FIRST_MS = 1000;
  const WAIT_MAX_MS = 10000; // the server's Retry-After
  // slea.measurement.scale.LEVELS: each level word and the lowest ability of its band.
  const LEVEL_BANDS = [["novice", -Infinity], ["beginner", -1.5], ["intermediate", -0.5], ["advanced", 0.5], ["expert", 1.5]];
  const levelOf = (theta) => LEVEL_BANDS.filter(([, floor]) => theta >= floor).pop()[0];
  const capital = (word) => word.charAt(0).toUpperCase() + word.slice(1);
  const percentOf = (chance) => (chance > 0 && chance < 0.005 ? "<1%" : `${Math.round(chance * 100)}%`);
  // cat.one_chance_in: "1 chance in N", N rounded and at least 2.
  const oneChanceIn = (chance) => Math.max(2, Math.round(1 / chance));

  async function startPlacement() {
    const button = $("#placement-button");
    if (button.disabled) return; // its request is in flight
    button.disabled = true;
    try {
      state.category = $("#category").value;
      const created = await api("POST", "/sessions", { purpose: "placement", category: state.category });
      useSession(created.session_id);
      placement.on = true;
      state.round = 1;
    } finally {
      button.disabled = false;
    }
    await placementStep();
  }

  /* The test's next step from the server: its open question, or its result; or the wait. */
  async function placementStep(wait = WAIT_FIRST_MS) {
    clearTimeout(placement.timer);
    let step;
    try {
      step = await api("POST", `/sessions/${state.sessionId}/next`);
    } catch (error) {
      if (!(error instanceof Slea.ApiError && error.code === "NO_QUESTION_YET")) throw error;
      return waitForQuestions(wait);
    }
    if (step.done) return showPlacementResult(step.result);
    placement.progress = step.progress;
    state.questions = [step.question];
    state.index = 0;
    showQuestion();
  }

  /* "Preparing questions…" while generation fills the bank; asks again after `wait`, then twice as
     long each time (at most WAIT_MAX_MS). One timer at a time; leaving the screen stops it. */
  function waitForQuestions(wait) {
    placement.wait = wait;
    redraw = () => {
      $("#progress-title").textContent = t("placement.preparing");
      $("#progress-text").textContent = t("placement.waiting", { seconds: Math.round(placement.wait / 1000) });
    };
    redraw();
    if ($("#progress").hidden) {
      $("#retry-round").hidden = true;
      $("#progress-bar").removeAttribute("value");
      show("progress");
    }
    placement.timer = setTimeout(() => {
      if ($("#progress").hidden || !placement.on) return;
      placementStep(Math.min(wait * 2, WAIT_MAX_MS)).catch(reportError);
    }, wait);
  }

  /* The question screen's title and meta, and the progress line: about how many more answers the
     stopping rule waits for, and the test's maximum length. */
  function drawPlacementQuestion(question) {
    const progress = placement.progress;
    $("#question-title").textContent = t("placement.question", { number: progress.answered + 1 });
    $("#question-meta").textContent = t("placement.meta", {
      category: named("category", question.category), difficulty: difficultyWords(question.difficulty, question.difficulty_level),
    });
    $("#placement-progress").textContent = progress.more_expected
      ? SleaI18n.plural("placement.more", progress.more_expected, { max: progress.max_questions })
      : t("placement.more.none", { max: progress.max_questions });
  }

  /* The level with how sure it is: the likeliest other level as "1 chance in N", or, when no
     other level reaches 5%, the level's own chance. */
  function placementSentence(result) {
    const level = capital(named("level.name", result.level));
    if (!result.other_level) return t("placement.sentence.sure", { level, percent: Math.round(result.level_chance * 100) });
    return t("placement.sentence.other", {
      level, count: oneChanceIn(result.other_level_chance), other: named("level.name", result.other_level),
    });
  }

  /* The 95% range in numbers and in the level bands it spans. */
  function rangeSentence(result) {
    const { fixed } = SleaAbility;
    const numbers = { low: fixed(result.range_low), high: fixed(result.range_high), theta: fixed(result.theta) };
    const [from, to] = [levelOf(result.range_low), levelOf(result.range_high)];
    if (from === to) return t("placement.range.one", { ...numbers, level: named("level.name", from) });
    return t("placement.range.span", { ...numbers, from: named("level.name", from), to: named("level.name", to) });
  }

  function drawPlacementResult(result) {
    const level = named("level.name", result.level);
    $("#placement-heading").textContent = t("placement.heading", { category: named("category", result.category), level });
    $("#placement-sentence").textContent = placementSentence(result);
    const meaning = `placement.meaning.${result.level}`;
    $("#placement-meaning").textContent = meaning in SleaI18n.MESSAGES.en ? t("placement.meaning", { level, text: t(meaning) }) : "";
    $("#placement-range").textContent = rangeSentence(result);
    $("#placement-items").textContent =
      `${SleaI18n.plural("placement.items", result.items)} ${named("placement.stopped", result.stopped_because)}`;
    $("#placement-pending").hidden = !result.pending_review;
    $("#placement-pending").textContent = result.pending_review ? SleaI18n.plural("placement.pending", result.pending_review) : "";
    $("#placement-chances tbody").replaceChildren(
      ...result.chances.map((entry) =>
        el("tr", { class: entry.level === result.level ? "measured" : null },
          el("td", { text: named("level.name", entry.level) }), el("td", { text: percentOf(entry.chance) }))));
  }

  function showPlacementResult(result) {
    redraw = () => drawPlacementResult(result);
    redraw();
    show("placement-result"); // focus on its heading, which names the level
  }

  /* A skip on purpose: counted as a wrong answer at once (the button says so), then the next question. */
  async function skipQuestion() {
    clearError();
    const question = state.questions[state.index];
    if ($("#skip-question").disabled) return; // its request is in flight
    $("#skip-question").disabled = true;
    try {
      await api("POST", `/sessions/${state.sessionId}/questions/${question.question_id}/skip`);
      Object.assign(question, { answered: true, skipped: true });
      replaceNext = true; // Back never offers it again
      nextQuestion();
    } catch (error) {
      if (error.code !== "ALREADY_ANSWERED") throw error;
      replaceNext = true; // answered elsewhere meanwhile: its recorded grading
      if (!(await showRecorded(question))) return nextQuestion();
      reportError(t("feedback.answered_elsewhere"));
    } finally {
      replaceNext = false;
      $("#skip-question").disabled = false;
    }
  }

  // ------------------------------------------------------------------ feedback
  /* The graded answer in parts: the question, the learner's own answer, why a short answer got
     its score, the key and why, why a wrong choice is wrong or what a typed answer is missing,
     next steps (ScoreAnswerOutput.details). Without details (an older
     server) the question and the answer come from the page and the explanation prose follows. */
  function feedbackParts(result, question, ownAnswer) {
    const details = result.details || {};
    const choice = question && question.type !== "short_answer";
    const parts = [
      ["feedback.question", details.question || (question && question.stem)],
      [choice ? "feedback.your_choice" : "feedback.your_answer", details.your_answer || ownAnswer],
    ];
    if (result.details) {
      parts.push(["feedback.score_reason", details.score_reason]);
      if (!result.is_correct || !choice) parts.push(["feedback.correct_answer", details.correct_answer]);
      // A typed answer falls short of the model answer; a choice is wrong.
      if (!result.is_correct) parts.push([choice ? "feedback.why_wrong" : "feedback.why_short", details.why_yours_is_wrong]);
      parts.push(["feedback.why_correct", details.why_correct]);
      if ((details.next_steps || []).length) parts.push(["feedback.next_steps", details.next_steps]);
    }
    return parts.filter(([, value]) => value && (!Array.isArray(value) || value.length));
  }

  function partsList(parts) {
    return parts.flatMap(([key, value]) => [
      el("dt", { text: t(key) }),
      el("dd", { "data-content": true, class: key === "feedback.question" ? "stem" : null },
        Array.isArray(value) ? el("ul", {}, value.map((step) => el("li", { text: step }))) : value),
    ]);
  }

  function referenceItems(links) {
    return (links || []).map((link) =>
      el("li", {}, el("a", { href: link.url, target: "_blank", rel: "noopener noreferrer", text: link.title || link.url })));
  }

  function showFeedback(result, question, ownAnswer) {
    redraw = () => {
      $("#verdict").textContent = t(result.is_correct ? "feedback.correct" : "feedback.incorrect");
      $("#score").textContent = scoreWords("feedback.score", result.score, question && question.type);
      $("#feedback-details").replaceChildren(...partsList(feedbackParts(result, question, ownAnswer)));
      const last = state.index + 1 >= state.questions.length;
      $("#next").textContent = t(last ? "feedback.to_summary" : "feedback.next");
      if (placement.on) $("#next").textContent = t("placement.continue"); // the next step may be the result
    };
    redraw();
    $("#provisional").hidden = !result.needs_review;
    const round = `${state.sessionId}#${state.round}`;
    const note = result.held_back_note && !noteSaidFor.has(round) ? result.held_back_note : "";
    if (note) noteSaidFor.add(round);
    $("#held-back-note").textContent = note;
    $("#held-back-note").hidden = !note;
    // With details, the prose says the same again: it is not shown (no repetition).
    $("#feedback-text").textContent = result.details ? "" : result.feedback || "";
    $("#feedback-text").hidden = !$("#feedback-text").textContent;
    $("#explanation").textContent = result.explanation;
    $("#explanation-block").hidden = Boolean(result.details);
    $("#references").replaceChildren(...referenceItems(result.reference_links));
    $("#references-block").hidden = !(result.reference_links || []).length;
    $("#report-form").hidden = true;
    $("#report-open").setAttribute("aria-expanded", "false");
    $("#report-status").textContent = "";
    $("#report-reason").value = "";
    show("feedback", { q: question && question.question_id });
  }

  function nextQuestion() {
    if (placement.on) return placementStep();
    state.index += 1;
    if (state.index < state.questions.length) showQuestion();
    else showSummary().catch(reportError);
  }

  async function sendReport(event) {
    event.preventDefault();
    clearError();
    const reason = $("#report-reason").value.trim();
    if (!reason) return reportError(t("report.need_reason"));
    const question = state.questions[state.index];
    await api("POST", `/sessions/${state.sessionId}/questions/${question.question_id}/reports`, { reason });
    $("#report-form").hidden = true;
    $("#report-open").setAttribute("aria-expanded", "false");
    $("#report-status").textContent = t("report.thanks");
  }

  // ------------------------------------------------------------------ the round summary
  const percent = (value) => (value === null || value === undefined ? "–" : `${Math.round(value)}`);

  async function showSummary() {
    const summary = await api("GET", `/sessions/${state.sessionId}/summary`);
    const unfinished = summary.rounds.find((r) => r.answered + (r.skipped || 0) < r.questions);
    redraw = () => drawSummary(summary, unfinished);
    redraw();
    $("#answers").hidden = true;
    $("#show-answers").setAttribute("aria-expanded", "false");
    show("summary");
    loadAbility(); // the level after this round's answers, below the summary
  }

  function drawSummary(summary, unfinished) {
    $("#rounds tbody").replaceChildren(
      ...summary.rounds.map((r) =>
        el("tr", {}, el("td", { text: r.round }), el("td", { text: t("summary.answered_of", { answered: r.answered, questions: r.questions }) + (r.skipped ? t("summary.skipped_of", { skipped: r.skipped }) : "") }),
          el("td", { text: r.correct }), el("td", { text: percent(r.score) }), el("td", { text: r.pending_review })),
      ),
    );
    $("#to-review").replaceChildren(
      ...(summary.to_review.length
        ? summary.to_review.map((item) =>
          el("li", {}, el("span", { "data-content": true, text: `${item.stem} ` }),
            el("span", { class: "meta", text: t("summary.to_review_meta", { round: item.round, score: item.score }) + t("feedback.pass_mark", { mark: PASS_MARK }) })))
        : [el("li", { text: t("summary.nothing") })]),
    );
    const next = summary.next_round;
    $("#continue-round").hidden = !unfinished;
    if (unfinished) {
      $("#continue-round").textContent = t("summary.continue", { round: unfinished.round });
      $("#continue-round").dataset.round = unfinished.round;
    }
    $("#next-round").hidden = next !== 2 || Boolean(unfinished);
    $("#next-round-text").textContent = unfinished // never "finished" while questions are open
      ? SleaI18n.plural("summary.open_left", unfinished.questions - unfinished.answered - (unfinished.skipped || 0), { round: unfinished.round })
      : next === 2
        ? t("summary.next_at", {
          difficulty: summary.next_difficulty ? difficultyWords(summary.next_difficulty, summary.next_level) : t("summary.next_chosen"),
        })
        : next === 1
          ? t("summary.round1_open")
          : t("summary.done");
    const measured = summary.ability;
    $("#summary-ability").hidden = !measured;
    if (measured) {
      const words = SleaAbility.describe(measured);
      // One line: the level panel below the summary has the range, the trend and the chart.
      $("#summary-ability").textContent = t("summary.level", { category: words.category, level: words.level })
        + (measured.skipped ? ` ${SleaI18n.plural("level.skipped", measured.skipped)}` : "");
    }
  }

  // ------------------------------------------------------------------ history
  /* Every answer of every session (GET /learners/me/attempts), newest first, a page at a time,
     filtered by session (this one at first); the sessions for the filter from GET /sessions. */
  const HISTORY_PAGE = 10;
  const SESSIONS_LISTED = 20; // GET /sessions' largest page: the filter offers the latest sessions
  const answers = { filter: null, cursor: null, attempts: [], sessions: [] };
  const when = (at) => String(at || "").slice(0, 16).replace("T", " ");

  /* A reviewer's change shows as one: the score before and after; an unchanged grade was confirmed. */
  const corrected = (attempt) =>
    attempt.reviewed && attempt.original_score !== null && attempt.original_score !== undefined && attempt.original_score !== attempt.score;

  function statusOf(attempt) {
    if (attempt.skipped) return t("history.skipped");
    if (corrected(attempt)) return t("history.corrected", { original: attempt.original_score, score: attempt.score });
    return t(attempt.reviewed ? "history.confirmed" : attempt.needs_review ? "history.awaiting" : "history.final");
  }

  /* Right or wrong by an icon and a word as well as a colour (never colour alone). */
  function verdictOf(attempt) {
    const right = Boolean(attempt.is_correct);
    return el("span", { class: `verdict ${right ? "right" : "wrong"}` },
      el("span", { class: "icon", "aria-hidden": "true", text: right ? "✓" : "✗" }),
      t(right ? "history.right" : "history.wrong"));
  }

  /* A choice is stored as its letter ("B"): shown as the option's text when the options are known. */
  function answerText(attempt) {
    const choices = attempt.question_choices || [];
    if (attempt.skipped) return t("history.no_answer");
    if (attempt.question_type !== "multiple_choice") return attempt.user_answer;
    return choices.find((choice) => letter(choice) === attempt.user_answer) || attempt.user_answer;
  }

  function sessionName(sessionId) {
    const known = answers.sessions.find((session) => session.session_id === sessionId);
    const date = known ? when(known.created_at) : String(sessionId || "").slice(0, 8);
    return t(sessionId === state.sessionId ? "history.this_session" : "history.session", { date });
  }

  /* One answer: its session and date, question, the whole answer, right or wrong, score and
     status; the explanation on demand. */
  function historyItem(attempt) {
    const explained = attempt.details
      ? el("dl", { class: "details" }, partsList(feedbackParts(attempt, { type: attempt.question_type, stem: attempt.question_stem }, answerText(attempt)).slice(2)))
      : el("div", { class: "explanation", "data-content": true, text: attempt.explanation || attempt.feedback || "" });
    return el("li", { class: `attempt ${attempt.is_correct ? "right" : "wrong"}`, "data-attempt": attempt.attempt_id, "data-session": attempt.session_id },
      el("h4", { text: t("history.item", { round: attempt.round, date: when(attempt.graded_at) }) }),
      el("p", { class: "meta session-name", text: sessionName(attempt.session_id) }),
      el("dl", { class: "details" },
        el("dt", { text: t("history.question") }),
        attempt.question_stem
          ? el("dd", { class: "stem", "data-content": true, text: attempt.question_stem })
          : el("dd", { class: "meta", text: t("history.unknown_question") }),
        el("dt", { text: t("history.answer") }),
        el("dd", { class: "answer-text", "data-content": true, text: answerText(attempt) })),
      el("p", { class: "grade" }, verdictOf(attempt), " · ", el("strong", { text: scoreWords("history.score", attempt.score, attempt.question_type) }),
        " · ", el("span", { class: "status", text: statusOf(attempt) })),
      attempt.review_note ? el("p", { class: "review-note", "data-content": true, text: t("history.review_note", { note: attempt.review_note }) }) : null,
      attempt.explanation || attempt.details
        ? el("details", {}, el("summary", { text: t("history.open") }), explained,
          el("ul", { "data-content": true }, referenceItems(attempt.reference_links)))
        : null,
    );
  }

  function drawAnswers() {
    const filter = $("#history-session");
    filter.replaceChildren(
      el("option", { value: "", text: t("history.all_sessions") }),
      ...answers.sessions.map((session) => el("option", { value: session.session_id, text: sessionName(session.session_id) })));
    filter.value = answers.filter || "";
    // Said once above the list (the same words each answer still waiting for its round carries).
    const waiting = answers.attempts.find((attempt) => attempt.held_back_note);
    $("#history-held-back").textContent = waiting ? waiting.held_back_note : "";
    $("#history-held-back").hidden = !waiting;
    $("#answers-list").replaceChildren(
      ...(answers.attempts.length ? answers.attempts.map(historyItem) : [el("li", { text: t("history.empty") })]));
    $("#answers-more").hidden = !answers.cursor;
  }

  /* The next page of the filter's answers (the first when `fresh`). */
  async function loadAnswers(fresh) {
    const query = new URLSearchParams({ limit: String(HISTORY_PAGE) });
    if (answers.filter) query.set("session_id", answers.filter);
    if (!fresh && answers.cursor) query.set("cursor", answers.cursor);
    const page = await api("GET", `/learners/me/attempts?${query}`);
    answers.attempts = fresh ? page.attempts : [...answers.attempts, ...page.attempts];
    answers.cursor = page.next_cursor;
    drawAnswers();
  }

  async function showAnswers() {
    const open = $("#answers").hidden;
    $("#show-answers").setAttribute("aria-expanded", String(open));
    if (!open) {
      $("#answers").hidden = true;
      return;
    }
    answers.filter = state.sessionId;
    answers.sessions = (await api("GET", `/sessions?limit=${SESSIONS_LISTED}`)).sessions;
    await loadAnswers(true);
    const summaryWords = redraw;
    redraw = () => {
      summaryWords();
      drawAnswers();
    };
    $("#answers").hidden = false;
  }

  async function filterAnswers() {
    answers.filter = $("#history-session").value || null;
    await loadAnswers(true);
  }

  // ------------------------------------------------------------------ wiring
  const guarded = (action) => (event) => {
    clearError();
    Promise.resolve(action(event)).catch(reportError);
  };

  document.addEventListener("DOMContentLoaded", () => {
    useLanguage(SleaI18n.initial());
    $("#language").addEventListener("change", () => {
      localStorage.setItem(languageKey(), $("#language").value);
      useLanguage($("#language").value);
    });
    $("#start-form").addEventListener("submit", guarded((event) => {
      event.preventDefault();
      state.category = $("#category").value;
      state.count = Number($("#count").value);
      localStorage.setItem(countKey(), String(state.count)); // the next round (and a reload) keeps it
      return startRound();
    }));
    $("#retry-round").addEventListener("click", guarded(startRound));
    $("#placement-button").addEventListener("click", guarded(startPlacement));
    $("#placement-back").addEventListener("click", guarded(showStart));
    $("#answer-form").addEventListener("submit", guarded(submitAnswer));
    $("#skip-question").addEventListener("click", guarded(skipQuestion));
    $("#short-answer").addEventListener("input", checkLength); // its messages go once their cause does
    $("#next").addEventListener("click", guarded(nextQuestion));
    $("#report-open").addEventListener("click", () => {
      const form = $("#report-form");
      form.hidden = !form.hidden;
      $("#report-open").setAttribute("aria-expanded", String(!form.hidden));
      if (!form.hidden) $("#report-reason").focus();
    });
    $("#report-form").addEventListener("submit", guarded(sendReport));
    $("#continue-round").addEventListener("click", guarded(() => {
      state.round = Number($("#continue-round").dataset.round);
      return loadQuestions();
    }));
    $("#next-round").addEventListener("click", guarded(() => {
      state.round = 2;
      return startRound();
    }));
    $("#show-answers").addEventListener("click", guarded(showAnswers));
    $("#history-session").addEventListener("change", guarded(filterAnswers));
    $("#answers-more").addEventListener("click", guarded(() => loadAnswers(false)));
    $("#resume").addEventListener("click", guarded(showSummary)); // mid-round: the summary, then back
    $("#new-session").addEventListener("click", guarded(newSession));
    window.addEventListener("popstate", (event) => {
      if (!userKey || !event.state || !event.state.screen) return;
      clearError();
      render(event.state).catch(reportError);
    });
    Slea.boot(async (user) => {
      userKey = user.sub;
      try {
        await resume();
      } catch (error) {
        reportError(error);
        showStart();
      }
    });
  });
})();
