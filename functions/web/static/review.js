/* The reviewer app: the queue (item, learner's answer, automatic grade beside the reviewer's
   decision), the actions (accept, override score, retire, edit, bulk accept) and the agreement
   between automatic and human grades. The review routes answer 403 to anyone without the
   reviewer role; this page then says so. Other views: the item analysis (calibrated items and
   their statistics) and every reviewer's recent actions.

   Every text from a learner, an item or a token goes into the page as text (never markup), inside
   an isolating element (<bdi>, dir="auto") with its bidirectional control characters shown as
   visible marks: an override in an answer cannot reorder the text around it or itself. */
"use strict";

(() => {
  const { $, el, show, api, reportError, clearError } = Slea;
  const { t, plural } = SleaI18n; // the desk's words in the reviewer's language (i18n.js, desk.*)
  const PASS_MARK = 80; // correct from this score; the API says so (correct_from), this is until it has
  const PAGE_SIZE = 50;
  const BULK_MAX = 50; // POST /review/attempts/accept takes at most 50 ids
  const COLLAPSE_AT = 300; // characters of a long answer or stem shown before "Show all"
  const EMPTY_PAGES_FOLLOWED = 4; // a filtered page may be empty with more after it
  let stats = null;
  let cursor = null; // the queue is paged (at most 1 MB a page): where the next page starts
  let query = new URLSearchParams(); // the filters and sort the shown entries were read with
  let rendered = 0;
  let generation = 0; // a newer filter choice outdates pages still being read for an older one
  /* One state for the queue, shared by the one-by-one and group views: every open entry either
     view has read, by id (a group lists its members' ids). An action settles entries (`settle`):
     both views drop them at once, and the counts are read again from the server. */
  const known = new Map();
  const acting = new Set(); // entries whose action is on its way: a second click sends nothing

  // ---------------------------------------------------------------- text shown safely
  // Embeddings, overrides, isolates, marks (LRM, RLM, ALM): they change how the text around them reads.
  const BIDI_CONTROLS = /[\u202A-\u202E\u2066-\u2069\u200E\u200F\u061C]/g;
  const codePoint = (char) => `U+${char.codePointAt(0).toString(16).toUpperCase().padStart(4, "0")}`;

  /* `text` as nodes: plain text, and each bidirectional control as a visible mark naming it. */
  function neutralised(text) {
    const value = String(text ?? "");
    const parts = [];
    let last = 0;
    for (const match of value.matchAll(BIDI_CONTROLS)) {
      if (match.index > last) parts.push(value.slice(last, match.index));
      parts.push(el("span", { class: "control-char", title: t("desk.bidi"), text: `[${codePoint(match[0])}]` }));
      last = match.index + match[0].length;
    }
    if (last < value.length) parts.push(value.slice(last));
    return parts;
  }

  /* Someone else's text in an isolating element, so its direction cannot leak into ours. */
  const userText = (text, tag = "bdi", attributes = {}) => el(tag, { dir: "auto", ...attributes }, neutralised(text));

  /* A long text: its start, and the whole on demand. */
  function collapsible(text, what) {
    const value = String(text ?? "");
    if (value.length <= COLLAPSE_AT) return userText(value, "p", { class: "stem" });
    return el("details", { class: "long" },
      el("summary", {},
        userText(`${value.slice(0, COLLAPSE_AT)}…`, "span", { class: "stem" }),
        el("span", { class: "more-hint", text: t("desk.show_all", { what, count: value.length.toLocaleString() }) })),
      userText(value, "p", { class: "stem" }));
  }

  const when = (iso) => {
    const date = new Date(iso);
    return Number.isNaN(date.getTime()) ? String(iso || "–") : date.toLocaleString(undefined, { dateStyle: "medium", timeStyle: "short" });
  };
  const shortId = (id) => (id ? String(id).slice(0, 8) : "?");

  function renderStats() {
    const agreement = stats.reviewed ? stats.accepted / stats.reviewed : stats.agreement;
    $("#stat-open").textContent = stats.open;
    $("#stat-reviewed").textContent = stats.reviewed;
    $("#stat-accepted").textContent = stats.accepted;
    $("#stat-overridden").textContent = stats.overridden;
    $("#stat-agreement").textContent = agreement === null || agreement === undefined ? "–" : `${Math.round(agreement * 100)}%`;
    $("#stat-questions").textContent = `${stats.questions_retired} / ${stats.questions_edited}`;
    $("#stat-pass").textContent = t("desk.stats.pass_value", { pass: passMark() });
  }

  /* The counts as the server has them (GET /review/stats): read again after every action. */
  async function refreshStats() {
    try {
      stats = await api("GET", "/review/stats");
      renderStats();
    } catch (error) {
      reportError(error);
    }
  }

  const row = (label, value, kind = null) => (value === null || value === undefined || value === "" ? null : el("p", kind ? { class: kind } : {}, el("strong", { text: `${label}: ` }), userText(value)));

  function itemColumn(entry, name) {
    const q = entry.question;
    // A short answer's key: its terms as the learner's feedback names them (whole words).
    const key = q.correct_answer || (q.key_terms || q.correct_keywords || []).join(", ");
    const keyLabel = t(q.correct_answer ? "desk.key" : "desk.key_terms");
    return el("div", {},
      el("h4", { text: t("desk.item") }),
      el("p", { class: "meta", text: itemLine(q) }),
      collapsible(q.stem, t("desk.what.stem", { name })),
      q.choices && q.choices.length ? el("ul", {}, q.choices.map((c) => el("li", {}, userText(c)))) : null,
      el("p", {}, el("strong", { text: `${keyLabel}: ` }), userText(key || "–", "bdi", { class: "key" })),
      row(t("desk.reference"), q.reference_answer),
      q.explanation ? el("details", {}, el("summary", { text: t("desk.explanation_of", { name }) }), userText(q.explanation, "p", { class: "explanation" })) : null,
      q.rested_at ? el("p", { class: "rested" }, SleaI18n.t("review.rested", {
        when: when(q.rested_at), why: SleaI18n.t(`review.rested.${q.rest_reason === "farm" || q.rest_reason === "compromised" ? q.rest_reason : "exposure"}`),
      })) : null,
      q.reports && q.reports.length ? el("div", {}, el("strong", { text: t("desk.reports") }), el("ul", {}, q.reports.map((r) => el("li", {}, userText(r.reason))))) : null,
      entry.attempt ? el("div", {}, el("h4", { text: t("desk.learner_answer") }), collapsible(entry.attempt.user_answer, name)) : null,
    );
  }

  function gradeColumn(entry, name) {
    const a = entry.attempt;
    const q = entry.question;
    if (!a) {
      return el("div", {},
        el("h4", { text: t("desk.statistics") }),
        row(t("desk.answered"), q.usage_count),
        row(t("desk.answered_correctly"), q.correct_count),
        detailsFold([[t("desk.details.codes"), codes(q)], [t("desk.details.validation"), q.validation_score]], name),
      );
    }
    const pass = passMark(a);
    const summary = a.reasoning_summary;
    return el("div", { "data-confidence": Math.round(a.confidence * 100) },
      el("h4", { text: a.proposal ? t("desk.grade.final") : t("desk.grade.auto") }),
      el("p", { class: "score", text: t(a.score >= pass ? "desk.score.correct" : "desk.score.wrong", { score: a.score, pass }) }),
      a.proposal
        ? el("p", { class: "proposal" },
          el("strong", { text: t("desk.proposal.head", { score: a.score, proposed: a.proposal.score, verdict: verdict(a.proposal.score, pass) }) }),
          userText(a.proposal.by_name || a.proposal.by), " — “", userText(a.proposal.note), "”. ",
          t("desk.proposal.tail"))
        : null,
      summary ? row(t("desk.summary.label"), inWords(summary), "summary") : null,
      summary && summary.queued_because ? row(t("desk.why.label"), whyItWaits(summary, a), "why") : null,
      row(t("desk.feedback"), a.feedback),
      detailsFold([
        [t("desk.details.confidence"), `${Math.round(a.confidence * 100)}%`],
        [t("desk.details.reasoning"), a.reasoning],
        [t("desk.details.keywords"), (a.keyword_matches || []).join(", ")],
        [t("desk.details.codes"), codes(q)],
      ], name),
    );
  }

  /* The pass mark: a score from it is correct (the API's correct_from, the same for every grade). */
  const passMark = (attempt) => (attempt && attempt.correct_from) || (stats && stats.correct_from) || PASS_MARK;
  const verdict = (score, pass = passMark()) => t(score >= pass ? "desk.verdict.correct" : "desk.verdict.wrong", { pass });

  /* The item in words ("Short answer · Technical · Korean · difficulty 5 of 10"); its codes are in Details. */
  function itemLine(q) {
    const line = t("desk.meta", {
      type: q.type ? SleaI18n.named("desk.type", q.type) : t("desk.item"),
      category: q.category ? SleaI18n.named("category", q.category) : t("desk.meta.unknown"),
      language: q.language ? SleaI18n.named("language", q.language) : t("desk.meta.unknown"),
      difficulty: q.difficulty ?? t("desk.meta.unknown"),
    });
    return q.status === "retired" ? t("desk.meta.retired", { meta: line }) : line;
  }
  const codes = (q) => `${q.type || "?"} · ${q.category || "?"} · ${q.language || "?"} · ${q.difficulty ?? "?"} · ${q.status || "?"}`;

  /* The automatic grade's reasoning as a sentence a teacher reads (GET /review/queue's reasoning_summary). */
  function inWords(summary) {
    const parts = [];
    if (summary.not_an_answer) parts.push(t("desk.summary.not_an_answer"));
    else if (summary.unrelated) parts.push(t("desk.summary.unrelated"));
    const total = summary.key_ideas_total;
    if (total && !summary.not_an_answer) {
      const found = summary.key_ideas_found || 0;
      const none = total === 1 ? "desk.summary.key_one_missed" : "desk.summary.keys_none";
      parts.push(t(found === 0 ? none : found >= total ? "desk.summary.keys_all" : "desk.summary.keys_some", { found, total }));
    }
    if (summary.meaning && !summary.not_an_answer) parts.push(t(`desk.summary.meaning.${summary.meaning}`));
    if (summary.on_topic === false && !summary.unrelated && !summary.not_an_answer) parts.push(t("desk.summary.off_topic"));
    return parts.length ? t("desk.summary.sentence", { parts: parts.join(t("desk.summary.join")) }) : null;
  }

  /* Why a provisional grade waits, in words: never "unsure" beside a confidence that reads sure. */
  function whyItWaits(summary, attempt) {
    const reason = summary.queued_because;
    return t(`desk.why.${reason}`, {
      verdict: t(`desk.leans.${summary.leans}`), confidence: Math.round(attempt.confidence * 100),
    });
  }

  /* Raw codes, internal scores and the grader's own reasoning: folded, for whoever wants them. */
  function detailsFold(rows, name) {
    const shown = rows.map(([label, value]) => row(label, value)).filter(Boolean);
    const summary = el("summary", { text: t("desk.details"), "aria-label": t("desk.details_of", { name }) });
    return shown.length ? el("details", { class: "details-fold" }, summary, shown) : null;
  }

  /* The review record of the entry, read when first opened (GET /review/audit). */
  function historyOf(entry, name) {
    const list = el("ol", { class: "review-history" });
    const details = el("details", { class: "history-box" },
      el("summary", { text: t("desk.history_of", { name }) }), list);
    let read = false;
    details.addEventListener("toggle", async () => {
      if (!details.open || read) return;
      read = true;
      list.replaceChildren(el("li", { text: t("loading") }));
      try {
        const { records } = await api("GET", `/review/audit?target_id=${encodeURIComponent(entry.entry_id)}`);
        list.replaceChildren(...(records.length ? records.map(auditItem) : [el("li", { text: t("desk.history.none") })]));
      } catch (error) {
        read = false;
        list.replaceChildren();
        reportError(error);
      }
    });
    return details;
  }

  /* What an action did, in words: "accepted" when it kept everything, else before → after. */
  const change = (record) => {
    const before = record.before || {};
    const after = record.after || {};
    if ("proposed_score" in after) return t("desk.change.proposed", { before: before.score ?? "–", after: after.proposed_score });
    if (record.action === "bulk_accept") return plural("desk.change.bulk", (after.accepted || []).length);
    if (record.action === "revert_bulk" || record.action === "revert_group") return t("desk.change.reverted", { reverted: (after.reverted || []).length, kept: (after.kept || []).length });
    if (record.action === "group_grade") return t("desk.change.group", { count: (after.reviewed || []).length, score: after.score });
    if (record.action === "revert_edit") return t("desk.change.revert_edit");
    if (before.drawable === false && after.drawable === true) return SleaI18n.t("review.change.drawable");
    if (record.changed === false) return record.action === "revert_accept" ? t("desk.change.unreviewed") : t("desk.change.kept");
    if ("score" in before || "score" in after) {
      const scores = { before: before.score ?? "–", after: after.score ?? "–" };
      return typeof after.score === "number" ? t("desk.change.score_verdict", { ...scores, verdict: verdict(after.score) }) : t("desk.change.score", scores);
    }
    if ("status" in after) return t("desk.change.status", { before: before.status ? SleaI18n.named("desk.status", before.status) : "–", after: SleaI18n.named("desk.status", after.status) });
    return "";
  };

  // An action in words (desk.action.*), else its name with spaces.
  const actionWords = (record) => (`desk.action.${record.action}` in SleaI18n.MESSAGES.en ? t(`desk.action.${record.action}`) : record.action.replace(/_/g, " "));

  function auditItem(record) {
    return el("li", { class: "audit" },
      el("time", { datetime: record.at, text: when(record.at) }), " · ",
      userText(record.who_name || record.who, "bdi", { class: "reviewer" }), " · ",
      el("strong", { text: actionWords(record) }), change(record) ? ` · ${change(record)}` : "",
      record.note ? [" · “", userText(record.note), "”"] : null);
  }

  /* A short, stable name for an entry: its stem's start and the answer's (or report's) time. */
  function entryName(entry) {
    const stem = String(entry.question.stem || "").replace(/\s+/g, " ").trim();
    const short = stem.length > 48 ? `${stem.slice(0, 47)}…` : stem || t("desk.item_id", { id: shortId(entry.question.question_id) });
    const at = entry.attempt ? entry.attempt.graded_at : entry.queued_at;
    return `“${short}” · ${when(at)}`;
  }

  // ---------------------------------------------------------------- undo
  let undoing = null;

  /* Offer to undo an action: a reason is asked for, and the undo is audited like the action. */
  function offerUndo(what, send) {
    undoing = send;
    $("#undo-what").textContent = what;
    $("#undo-note").value = "";
    $("#undo").hidden = false;
  }

  async function runUndo(event) {
    event.preventDefault();
    const note = $("#undo-note").value.trim();
    if (!note) {
      $("#undo-note").focus();
      return reportError(t("desk.undo.need_reason"));
    }
    if (!undoing) return undefined;
    const send = undoing;
    undoing = null; // one undo per offer, however often the button is pressed
    $("#undo-yes").disabled = true;
    try {
      const message = await send(note);
      $("#undo").hidden = true;
      $("#review-status").textContent = message;
      if (!$("#recent").hidden) loadRecent();
    } catch (error) {
      undoing = send;
      reportError(error);
    } finally {
      $("#undo-yes").disabled = false;
    }
    return undefined;
  }

  /* After an undo: the view shown read again (what came back to the queue shows in it), the
     other view read when next shown, and the counts as the server has them. */
  async function refreshQueue() {
    await refreshStats();
    grouped.entriesStale = true;
    if (groupsShown()) await loadGroups();
    else {
      grouped.entriesStale = false;
      await reload();
    }
  }

  const unretire = (questionId) => async (note) => {
    await api("POST", `/review/questions/${encodeURIComponent(questionId)}/unretire`, { note });
    await refreshQueue();
    return t("desk.undo.retire_done");
  };

  const revertBulk = (bulkId) => async (note) => {
    const done = await api("POST", `/review/bulk/${encodeURIComponent(bulkId)}/revert`, { note });
    await refreshQueue();
    return plural("desk.undo.bulk_done", done.reverted.length) + (done.kept.length ? t("desk.undo.kept", { count: done.kept.length }) : ".");
  };

  const undoReview = (attemptId) => async (note) => {
    const done = await api("POST", `/review/attempts/${encodeURIComponent(attemptId)}/undo`, { note });
    await refreshQueue();
    return t("desk.undo.review_done", { score: done.score });
  };

  const revertGroup = (groupId) => async (note) => {
    const done = await api("POST", `/review/groups/${encodeURIComponent(groupId)}/revert`, { note });
    await refreshQueue();
    return plural("desk.undo.group_done", done.reverted.length) + (done.kept.length ? t("desk.undo.kept", { count: done.kept.length }) : ".");
  };

  const revertEdit = (questionId) => async (note) => {
    await api("POST", `/review/questions/${encodeURIComponent(questionId)}/revert-edit`, { note });
    await refreshQueue();
    return t("desk.undo.edit_done");
  };

  function decisionColumn(entry, id, name) {
    const note = el("textarea", { id: `note-${id}`, rows: 2, maxlength: 1000, "aria-label": t("desk.note.named", { name }) });
    const parts = [
      el("h4", { text: t("desk.decision") }),
      el("label", { for: `note-${id}`, text: entry.kind === "attempt" ? t("desk.note.attempt") : t("desk.note.question") }),
      note,
    ];
    const send = (body) => {
      const reason = note.value.trim();
      if (!reason && body.action === "accept" && entry.kind === "question" && entry.question.rested_at) {
        note.focus();
        return reportError(SleaI18n.t("review.rested.need_reason"));
      }
      if (!reason && ["override", "retire", "edit"].includes(body.action)) {
        note.focus();
        return reportError(t(`desk.need_reason.${body.action}`));
      }
      return act(entry, { ...body, ...(reason ? { note: reason } : {}) });
    };
    if (entry.kind === "attempt" && entry.attempt.proposal) {
      parts.push(el("div", { class: "actions" },
        el("button", { type: "button", text: t("desk.confirm_change"), "aria-label": t("desk.confirm_change_named", { name }), "data-action": "accept", onclick: () => send({ action: "confirm" }) }),
        el("button", { type: "button", class: "quiet", text: t("desk.reject_change"), "aria-label": t("desk.reject_change_named", { name }), onclick: () => send({ action: "reject" }) })));
      return el("div", {}, parts);
    }
    if (entry.kind === "attempt") {
      const score = el("input", {
        id: `score-${id}`, type: "number", min: 0, max: 100, value: entry.attempt.score,
        "aria-label": t("desk.score_named", { name }), "data-action": "score",
      });
      const override = () => {
        const value = Number(score.value);
        if (score.value === "" || !Number.isInteger(value) || value < 0 || value > 100) {
          return reportError(t("desk.score_range"));
        }
        send({ action: "override", score: value });
      };
      score.addEventListener("keydown", (event) => {
        if (event.key === "Enter") {
          event.preventDefault();
          override();
        }
      });
      parts.push(
        el("button", { type: "button", text: t("desk.accept_grade"), "aria-label": t("desk.accept_grade_named", { name }), "data-action": "accept", onclick: () => send({ action: "accept" }) }),
        el("label", { for: `score-${id}`, text: t("desk.corrected_score", { pass: passMark(entry.attempt) }) }),
        score,
        el("button", { type: "button", text: t("desk.override"), "aria-label": t("desk.override_named", { name }), onclick: override }),
      );
      return el("div", {}, parts);
    }
    const q = entry.question;
    const stem = el("textarea", { id: `stem-${id}`, rows: 3, "aria-label": t("desk.edit.stem_named", { name }) });
    stem.value = q.stem || "";
    const choices = el("textarea", { id: `choices-${id}`, rows: 4, "aria-label": t("desk.edit.choices_named", { name }) });
    choices.value = (q.choices || []).join("\n");
    const answer = el("input", { id: `answer-${id}`, value: q.correct_answer || "", "aria-label": t("desk.edit.answer_named", { name }) });
    const keywords = el("input", { id: `keywords-${id}`, value: (q.correct_keywords || []).join(", "), "aria-label": t("desk.edit.keywords_named", { name }) });
    const edit = el("form", { hidden: true },
      el("label", { for: `stem-${id}`, text: t("desk.edit.stem") }), stem,
      q.choices && q.choices.length ? [el("label", { for: `choices-${id}`, text: t("desk.edit.choices") }), choices] : null,
      q.correct_keywords ? [el("label", { for: `keywords-${id}`, text: t("desk.edit.keywords") }), keywords]
        : [el("label", { for: `answer-${id}`, text: t("desk.edit.answer") }), answer],
      el("button", { type: "submit", text: t("desk.edit.save"), "aria-label": t("desk.edit.save_named", { name }) }),
    );
    let editConfirm = null; // made when first asked: until then the entry's one confirmation is the retirement's
    edit.addEventListener("submit", (event) => {
      event.preventDefault();
      const body = { action: "edit", stem: stem.value.trim() };
      if (q.choices && q.choices.length) body.choices = choices.value.split("\n").map((c) => c.trim()).filter(Boolean);
      if (q.correct_keywords) body.correct_keywords = keywords.value.split(",").map((k) => k.trim()).filter(Boolean);
      else body.correct_answer = answer.value.trim();
      // Asked first, as a retirement is: what the edit changes, and that it can be undone.
      if (!editConfirm) {
        editConfirm = el("div", { class: "confirm", hidden: true });
        edit.after(editConfirm);
      }
      const yes = el("button", { type: "button", text: SleaI18n.t("review.edit.yes"), "aria-label": SleaI18n.t("review.edit.yes_named", { name }), "data-action": "edit", onclick: () => send(body) });
      editConfirm.replaceChildren(
        el("p", { text: SleaI18n.t("review.edit.confirm") }), yes,
        el("button", { type: "button", class: "quiet", text: SleaI18n.t("review.edit.cancel"), "aria-label": SleaI18n.t("review.edit.cancel_named", { name }), onclick: () => { editConfirm.hidden = true; } }));
      editConfirm.hidden = false;
      yes.focus();
    });
    const retire = el("div", { class: "confirm", hidden: true },
      el("p", { text: t("desk.retire.confirm") }),
      el("button", { type: "button", text: t("desk.retire.yes"), "aria-label": t("desk.retire.yes_named", { name }), "data-action": "retire", onclick: () => send({ action: "retire" }) }));
    const toggle = el("button", {
      type: "button", class: "quiet", text: t("desk.edit.toggle"), "aria-expanded": "false", "aria-label": t("desk.edit.toggle_named", { name }),
      onclick: () => {
        edit.hidden = !edit.hidden;
        toggle.setAttribute("aria-expanded", String(!edit.hidden));
        if (!edit.hidden) stem.focus();
      },
    });
    parts.push(
      el("div", { class: "actions" },
        el("button", { type: "button", text: t("desk.accept_question"), "aria-label": t("desk.accept_question_named", { name }), "data-action": "accept", onclick: () => send({ action: "accept" }) }),
        el("button", { type: "button", class: "quiet", text: t("desk.retire.toggle"), "aria-label": t("desk.retire.toggle_named", { name }), "aria-expanded": "false", onclick: (event) => {
          retire.hidden = !retire.hidden;
          event.currentTarget.setAttribute("aria-expanded", String(!retire.hidden));
        } }),
        toggle),
      retire,
      edit,
    );
    return el("div", {}, parts);
  }

  // Where an entry came from, and why it is queued, in words (desk.source_tag.*, desk.reason_tag.*).
  const sourceWords = (source) => SleaI18n.named("desk.source_tag", source);
  const reasonWords = (reason) => (`desk.reason_tag.${reason}` in SleaI18n.MESSAGES.en ? t(`desk.reason_tag.${reason}`) : reason.replace(/_/g, " "));

  function renderEntry(entry, number) {
    const id = `e${number}`;
    const learner = entry.learner_id ? t("desk.learner_short", { id: shortId(entry.learner_id) }) : null;
    const name = entry.kind === "attempt"
      ? (learner ? t("desk.name.attempt_by", { entry: entryName(entry), learner }) : t("desk.name.attempt", { entry: entryName(entry) }))
      : t("desk.name.question", { entry: entryName(entry) });
    const context = [
      learner ? el("span", { title: entry.learner_id }, learner) : null,
      entry.session_id ? el("span", { title: entry.session_id }, t("desk.session_short", { id: shortId(entry.session_id) })) : null,
      entry.round ? t("desk.round", { round: entry.round }) : null,
      el("span", {}, t("desk.queued"), el("time", { datetime: entry.queued_at, text: when(entry.queued_at) })),
      sourceWords(entry.source),
    ].filter(Boolean);
    const select = entry.kind === "attempt"
      ? el("label", { class: "check pick" },
        el("input", { type: "checkbox", class: "bulk-pick", "data-attempt": entry.entry_id, "aria-label": t("desk.select_named", { name }), onchange: updateBulk }),
        t("desk.select"))
      : null;
    return el("article", { class: "entry section", "aria-labelledby": `title-${id}`, "data-entry": entry.entry_id, "data-kind": entry.kind },
      el("div", { class: "entry-head" },
        el("h3", { id: `title-${id}`, tabindex: "-1" },
          entry.kind === "attempt" ? t("desk.head.attempt", { entry: entryName(entry) }) : t("desk.head.question", { entry: entryName(entry) }),
          entry.reasons.map((reason) => el("span", { class: "tag", "data-reason": reason, text: reasonWords(reason) }))),
        select),
      el("p", { class: "meta context" }, context.flatMap((part, index) => (index ? [" · ", part] : [part]))),
      el("div", { class: "cols" }, itemColumn(entry, name), gradeColumn(entry, name), decisionColumn(entry, id, name)),
      historyOf(entry, name),
    );
  }

  const entryArticle = (id) => $(`:scope > article[data-entry="${CSS.escape(id)}"]`, $("#entries"));

  /* Settle entries: out of the one state at once (no second action on them), the counts read
     again from the server, then out of both views. In the one-by-one view the focus moves to the
     entry after the first one settled (or before it, at the end); the group view is read again by
     its caller. An entry leaves the page once the counts shown are the server's. */
  async function settle(ids) {
    const gone = new Set(ids);
    for (const id of gone) known.delete(id);
    await refreshStats();
    const shown = articles();
    const first = shown.findIndex((article) => gone.has(article.dataset.entry));
    const staying = shown.filter((article) => !gone.has(article.dataset.entry));
    const next = first < 0 ? null
      : shown.slice(first).find((article) => !gone.has(article.dataset.entry)) || staying[staying.length - 1] || null;
    for (const id of gone) {
      const article = entryArticle(id);
      if (article) article.remove();
    }
    let regrouped = false;
    for (const [groupId, members] of [...grouped.groups]) {
      const left = members.filter((id) => !gone.has(id));
      if (left.length === members.length) continue;
      regrouped = true;
      if (left.length) grouped.groups.set(groupId, left);
      else grouped.groups.delete(groupId);
    }
    if (regrouped && !groupsShown()) showGroups(); // drawn again from the state, ready when shown
    if (next && !groupsShown()) next.querySelector("h3").focus();
    if (!articles().length && !cursor && !$("#entries > p")) $("#entries").append(el("p", { text: t("desk.queue.empty") }));
    updateBulk();
  }

  async function act(entry, body) {
    clearError();
    if (acting.has(entry.entry_id) || !known.has(entry.entry_id)) return undefined; // sent already, or settled
    acting.add(entry.entry_id);
    const path = entry.kind === "attempt" ? `/review/attempts/${encodeURIComponent(entry.entry_id)}` : `/review/questions/${encodeURIComponent(entry.entry_id)}`;
    let result;
    try {
      result = await api("POST", path, body);
    } catch (error) {
      return reportError(error);
    } finally {
      acting.delete(entry.entry_id);
    }
    let undo = null;
    if (entry.kind === "attempt") {
      $("#review-status").textContent = result.status === "proposed"
        ? t("desk.status.proposed", { before: result.previous_score, after: body.score })
        : result.status === "rejected" ? t("desk.status.rejected")
        : result.action === "accept" ? t("desk.status.accepted", { score: result.score, verdict: verdict(result.score) })
        : t("desk.status.changed", { before: result.previous_score, after: result.score, verdict: verdict(result.score) });
      if (result.status === "applied") {
        undo = result.action === "accept"
          ? [t("desk.undo.accept_offer", { item: entryName(entry), score: result.score }), undoReview(entry.entry_id)]
          : [SleaI18n.t("review.undo.override", { item: entryName(entry), score: result.score, before: result.previous_score }), undoReview(entry.entry_id)];
      }
    } else {
      $("#review-status").textContent = t(`desk.status.question.${["retire", "edit"].includes(result.action) ? result.action : "accept"}`);
      if (result.action === "retire") undo = [t("desk.undo.retire_offer", { item: entryName(entry) }), unretire(entry.entry_id)];
      if (result.action === "edit") undo = [SleaI18n.t("review.undo.edit", { item: entryName(entry) }), revertEdit(entry.entry_id)];
    }
    // The undo beside the confirmation (a question's accept has none: an earlier offer is withdrawn with it).
    if (undo) offerUndo(...undo);
    else $("#undo").hidden = true;
    return settle([entry.entry_id]);
  }

  // ---------------------------------------------------------------- bulk accept
  const picks = () => [...document.querySelectorAll("#entries .bulk-pick")];

  function updateBulk() {
    const chosen = picks().filter((box) => box.checked).length;
    $("#bulk-accept").disabled = chosen === 0;
    $("#bulk-accept").textContent = chosen ? plural("desk.bulk.accept", chosen) : t("desk.bulk.accept_none");
    const all = picks();
    $("#select-all").checked = all.length > 0 && chosen === all.length;
  }

  /* Bulk accept asks first: how many grades, and a reason for the record. */
  function askBulk() {
    const chosen = picks().filter((box) => box.checked).length;
    if (!chosen) return;
    $("#bulk-question").textContent = plural("desk.bulk.question", chosen);
    $("#bulk-confirm").hidden = false;
    $("#bulk-note").focus();
  }

  async function bulkAccept(event) {
    if (event) event.preventDefault();
    clearError();
    const note = $("#bulk-note").value.trim();
    if (!note) {
      $("#bulk-note").focus();
      return reportError(t("desk.bulk.need_reason"));
    }
    $("#bulk-confirm").hidden = true;
    $("#bulk-note").value = "";
    const ids = picks().filter((box) => box.checked).map((box) => box.dataset.attempt);
    const failed = [];
    const bulks = [];
    let accepted = 0;
    const settled = [];
    $("#bulk-accept").disabled = true;
    try {
      for (let start = 0; start < ids.length; start += BULK_MAX) {
        const answer = await api("POST", "/review/attempts/accept", { attempt_ids: ids.slice(start, start + BULK_MAX), note });
        if (answer.bulk_id) bulks.push(answer.bulk_id);
        for (const result of answer.results) {
          if (result.status === "accepted" || result.status === "already_reviewed") {
            if (result.status === "accepted") accepted += 1;
            settled.push(result.attempt_id);
          } else {
            failed.push(`${shortId(result.attempt_id)}: ${result.message || result.status.replace(/_/g, " ")}`);
          }
        }
      }
    } catch (error) {
      reportError(error);
    }
    $("#review-status").textContent = plural("desk.bulk.done", accepted) + (failed.length ? t("desk.bulk.not_accepted", { list: failed.join("; ") }) : "");
    if (!bulks.length) $("#undo").hidden = true;
    if (bulks.length) {
      offerUndo(plural("desk.bulk.revert_offer", accepted), async (reason) => {
        const messages = [];
        for (const bulkId of bulks) messages.push(await revertBulk(bulkId)(reason));
        return messages.join(" ");
      });
    }
    await settle(settled);
    return undefined;
  }

  // ---------------------------------------------------------------- reading the queue
  function filtersQuery() {
    const chosen = new URLSearchParams({ limit: String(PAGE_SIZE) });
    for (const [name, id] of [["source", "#queue-source"], ["item_type", "#queue-type"], ["category", "#queue-category"], ["language", "#queue-language"]]) {
      if ($(id).value) chosen.set(name, $(id).value);
    }
    const search = $("#queue-search").value.trim().slice(0, 100);
    if (search) chosen.set("q", search);
    if ($("#queue-sort").value !== "queued_asc") chosen.set("sort", $("#queue-sort").value);
    return chosen;
  }

  function addPage(queue) {
    cursor = queue.next_cursor || null;
    for (const entry of queue.entries) known.set(entry.entry_id, entry);
    $("#entries").append(...queue.entries.map((entry) => renderEntry(entry, ++rendered)));
    $("#more").hidden = !cursor;
    updateBulk();
  }

  /* Pages until one has entries or the queue ends: a filtered page may be empty with more after it. */
  async function readPages(first = null) {
    const mine = generation;
    let shown = 0;
    for (let pages = 0; pages <= EMPTY_PAGES_FOLLOWED; pages += 1) {
      const page = new URLSearchParams(query);
      if (cursor) page.set("cursor", cursor);
      const queue = pages === 0 && first ? first : await api("GET", `/review/queue?${page}`);
      if (mine !== generation) return;
      addPage(queue);
      shown += queue.entries.length;
      stats.open = queue.open;
      if (shown || !cursor) break;
    }
    renderStats();
    const total = $("#entries").querySelectorAll("article").length;
    $("#review-status").textContent = !total && !cursor
      ? (query.toString() === `limit=${PAGE_SIZE}` ? "" : t("desk.queue.no_match"))
      : `${plural("desk.queue.shown", total)}${cursor ? t("desk.queue.more_hint") : ""}.`;
  }

  async function loadMore() {
    clearError();
    try {
      await readPages();
    } catch (error) {
      reportError(error);
    }
  }

  async function reload(first = null) {
    clearError();
    generation += 1;
    const mine = generation;
    query = filtersQuery();
    cursor = null;
    rendered = 0;
    $("#entries").replaceChildren();
    try {
      await readPages(first);
    } catch (error) {
      reportError(error);
    }
    if (mine === generation && !$("#entries").children.length && !cursor && query.toString() === `limit=${PAGE_SIZE}`) {
      $("#entries").append(el("p", { text: t("desk.queue.empty") }));
    }
  }

  async function load() {
    let first;
    try {
      first = await api("GET", `/review/queue?${filtersQuery()}`);
    } catch (error) {
      if (error instanceof Slea.ApiError && error.status === 403) return show("forbidden");
      throw error;
    }
    stats = await api("GET", "/review/stats");
    await reload(first);
    $("#tabs").hidden = false;
    show("queue");
  }

  // ---------------------------------------------------------------- review groups
  /* The queue by group (GET /review/groups): short answers to one item that the grader scored alike
     or that are worded alike. One decision (a score and a reason, confirmed) grades every waiting
     answer of a group (POST /review/groups/{id}); a ticked answer is split off and stays in the
     queue. Members are named by the item's short stem, the answer's time and the learner, never by
     their position. A group read over two pages is shown once, with the members of both. */
  const grouped = { cursor: null, generation: 0, groups: new Map(), lead: "" }; // a group: its members' ids (in `known`)
  /* What a reviewer has typed or ticked for a group, by group id: the group view is drawn again
     whenever the queue is read (a filter, a switch of view, an action elsewhere), and a reason
     half written must survive that. Forgotten once the group is graded. */
  const groupDrafts = new Map();
  const membersOf = (groupId) => (grouped.groups.get(groupId) || []).map((id) => known.get(id)).filter(Boolean);
  const groupsShown = () => !$("#groups-view").hidden;

  function groupsQuery() {
    const chosen = filtersQuery();
    chosen.delete("source"); // groups are provisional grades only
    chosen.delete("sort");
    return chosen;
  }

  const range = (values, format) => {
    const low = Math.min(...values);
    const high = Math.max(...values);
    return low === high ? format(low) : `${format(low)}–${format(high)}`;
  };

  /* What the group's members have in common and how far apart they are. */
  function spread(entries) {
    const attempts = entries.map((entry) => entry.attempt);
    const learners = new Set(entries.map((entry) => entry.learner_id)).size;
    return t("desk.group.spread", {
      scores: range(attempts.map((a) => a.score), String),
      confidences: range(attempts.map((a) => a.confidence), (c) => `${Math.round(c * 100)}%`),
      learners: plural("desk.group.learners", learners),
    });
  }

  function memberName(entry) {
    return entry.learner_id ? t("desk.member.name", { entry: entryName(entry), id: shortId(entry.learner_id) }) : entryName(entry);
  }

  function renderMember(entry, groupId) {
    const a = entry.attempt;
    const name = memberName(entry);
    return el("li", { class: "member", "data-entry": entry.entry_id },
      el("label", { class: "check" },
        el("input", { type: "checkbox", class: "split", "data-attempt": entry.entry_id, "data-group": groupId, "aria-label": t("desk.member.split_named", { name }) }),
        el("span", {}, t("desk.member.split"), el("span", { class: "meta", text: name }))),
      collapsible(a.user_answer, t("desk.what.answer")),
      el("p", { class: "meta", text: t("desk.member.grade", { score: a.score, verdict: verdict(a.score, passMark(a)), confidence: Math.round(a.confidence * 100) }) }));
  }

  function renderGroup(groupId, entries) {
    const face = entries[0];
    const q = face.question;
    const key = q.correct_answer || (q.key_terms || q.correct_keywords || []).join(", ");
    const id = `g${[...grouped.groups.keys()].indexOf(groupId)}`;
    const title = plural("desk.group.title", entries.length, { stem: entryName(face).replace(/ · .*$/, "") });
    const members = el("ul", { class: "members" }, entries.map((entry) => renderMember(entry, groupId)));
    const score = el("input", { id: `gscore-${id}`, type: "number", min: 0, max: 100, value: face.attempt.score });
    const note = el("textarea", { id: `gnote-${id}`, rows: 2, maxlength: 1000 });
    const grade = el("button", { type: "button", text: t("desk.group.grade"), disabled: true, "aria-label": t("desk.group.grade_named", { title }) });
    const confirm = el("div", { class: "confirm", hidden: true });
    const split = () => [...members.querySelectorAll(".split")].filter((box) => box.checked).map((box) => box.dataset.attempt);
    const draft = groupDrafts.get(groupId);
    if (draft) {
      score.value = draft.score;
      note.value = draft.note;
      for (const box of members.querySelectorAll(".split")) box.checked = draft.excluded.includes(box.dataset.attempt);
      grade.disabled = !note.value.trim();
    }
    const keepDraft = () => groupDrafts.set(groupId, { score: score.value, note: note.value, excluded: split() });
    score.addEventListener("input", keepDraft);
    note.addEventListener("input", () => {
      keepDraft();
      grade.disabled = !note.value.trim();
      confirm.hidden = true;
    });
    members.addEventListener("change", () => {
      keepDraft();
      confirm.hidden = true;
    });
    grade.addEventListener("click", () => {
      clearError();
      const value = Number(score.value);
      if (score.value === "" || !Number.isInteger(value) || value < 0 || value > 100) {
        return reportError(t("desk.group.score_range"));
      }
      if (!note.value.trim()) {
        note.focus();
        return reportError(t("desk.group.need_reason"));
      }
      const excluded = split();
      const graded = entries.length - excluded.length;
      confirm.replaceChildren(
        el("p", { text: plural("desk.group.confirm", graded, { score: value, verdict: verdict(value, passMark(face.attempt)) }) +
          (excluded.length ? plural("desk.group.split_stay", excluded.length) : "") }),
        el("button", { type: "button", text: t("desk.group.yes"), onclick: () => gradeGroup(groupId, { score: value, note: note.value.trim(), exclude: excluded }) }),
        el("button", { type: "button", class: "quiet", text: t("desk.cancel"), onclick: () => { confirm.hidden = true; } }));
      confirm.hidden = false;
    });
    return el("article", { class: "entry group", "data-group": groupId, "aria-labelledby": `title-${id}` },
      el("h3", { id: `title-${id}`, tabindex: "-1" }, t("desk.group.heading", { title })),
      el("p", { class: "meta context", text: spread(entries) }),
      el("div", { class: "cols" },
        el("div", {},
          el("h4", { text: t("desk.group.representative") }),
          collapsible(face.attempt.user_answer, t("desk.what.answer")),
          el("p", { class: "meta", text: memberName(face) }),
          row(t(q.correct_answer ? "desk.key" : "desk.key_terms"), key),
          row(t("desk.reference"), q.reference_answer),
          face.attempt.reasoning_summary ? row(t("desk.summary.label"), inWords(face.attempt.reasoning_summary), "summary") : null),
        el("div", {},
          el("h4", { text: t("desk.group.whole") }),
          el("label", { for: `gscore-${id}`, text: t("desk.group.score", { pass: passMark(face.attempt) }) }), score,
          el("label", { for: `gnote-${id}`, text: t("desk.group.reason") }), note,
          grade, confirm)),
      el("details", { class: "members-box" },
        el("summary", { text: plural("desk.group.show", entries.length) }),
        members));
  }

  function showGroups() {
    const shown = [...grouped.groups.keys()].map((groupId) => [groupId, membersOf(groupId)])
      .filter(([, entries]) => entries.length).sort((one, other) => other[1].length - one[1].length);
    $("#groups").replaceChildren(...shown.map(([groupId, entries]) => renderGroup(groupId, entries)));
    $("#groups-more").hidden = !grouped.cursor;
    const answers = shown.reduce((total, [, entries]) => total + entries.length, 0);
    $("#groups-status").textContent = (grouped.lead ? `${grouped.lead} ` : "") + (shown.length
      ? t("desk.groups.shown", { groups: plural("desk.groups.count", shown.length), answers: plural("desk.groups.answers", answers), more: grouped.cursor ? t("desk.groups.more_hint") : "" })
      : grouped.cursor ? t("desk.groups.none_page") : t("desk.groups.none"));
  }

  /* A page of groups; `fresh`: from the queue's start (a new filter, or after grading). */
  async function loadGroups(fresh = true) {
    clearError();
    if (fresh) {
      grouped.generation += 1;
      grouped.cursor = null;
      grouped.groups = new Map();
    }
    const mine = grouped.generation;
    const query = groupsQuery();
    if (grouped.cursor) query.set("cursor", grouped.cursor);
    $("#groups").setAttribute("aria-busy", "true"); // drawn again when the page arrives
    try {
      const page = await api("GET", `/review/groups?${query}`);
      if (mine !== grouped.generation) return;
      grouped.cursor = page.next_cursor || null;
      for (const group of page.groups) {
        const members = grouped.groups.get(group.group_id) || [];
        for (const entry of group.entries) {
          known.set(entry.entry_id, entry);
          if (!members.includes(entry.entry_id)) members.push(entry.entry_id);
        }
        grouped.groups.set(group.group_id, members);
      }
      if (stats) {
        stats.open = page.open;
        renderStats();
      }
      showGroups();
    } catch (error) {
      reportError(error);
    } finally {
      if (mine === grouped.generation) $("#groups").removeAttribute("aria-busy");
    }
  }

  async function gradeGroup(groupId, body) {
    clearError();
    if (acting.has(groupId)) return undefined; // sent already
    acting.add(groupId);
    const position = [...$("#groups").querySelectorAll(":scope > article")].findIndex((article) => article.dataset.group === groupId);
    let done;
    try {
      done = await api("POST", `/review/groups/${encodeURIComponent(groupId)}`, body);
    } catch (error) {
      return reportError(error);
    } finally {
      acting.delete(groupId);
    }
    groupDrafts.delete(groupId); // what stays in the group starts afresh
    const shown = membersOf(groupId);
    const named = (attemptId) => {
      const entry = shown.find((member) => member.entry_id === attemptId);
      return entry ? memberName(entry) : t("desk.answer_short", { id: shortId(attemptId) });
    };
    const left = done.results.filter((result) => !["reviewed", "excluded"].includes(result.status));
    const excluded = done.results.length - done.reviewed - left.length;
    const message = plural("desk.group.done", done.reviewed, { score: done.score }) +
      (excluded ? t("desk.group.done.split", { count: excluded }) : "") +
      (left.length ? t("desk.group.done.left", { list: left.map((r) => `${named(r.attempt_id)} (${r.message || r.status.replace(/_/g, " ")})`).join("; ") }) : "") + ".";
    $("#groups-status").textContent = message;
    $("#review-status").textContent = message; // beside its undo
    if (done.reviewed) {
      const face = shown[0];
      offerUndo(SleaI18n.plural("review.undo.group", done.reviewed, { item: face ? entryName(face).replace(/ · .*$/, "") : shortId(groupId), score: done.score }), revertGroup(groupId));
    } else {
      $("#undo").hidden = true;
    }
    const settled = done.results.filter((r) => ["reviewed", "already_reviewed"].includes(r.status)).map((r) => r.attempt_id);
    // The groups read again are shown after what was just done, in one change of the status.
    grouped.lead = message;
    try {
      await Promise.all([settle(settled), loadGroups()]);
    } finally {
      grouped.lead = "";
    }
    grouped.entriesStale = true; // the one-by-one view is read again when shown
    // The focus on the group now at the graded one's place (what is left of it, or the next).
    const groups = [...$("#groups").querySelectorAll(":scope > article")];
    const next = groups[Math.min(Math.max(position, 0), groups.length - 1)];
    if (next) next.querySelector("h3").focus();
    return undefined;
  }

  /* One by one, or by group: the same filters, each view read when shown. */
  function showQueueAs(groups) {
    $("#view-groups").setAttribute("aria-pressed", String(groups));
    $("#view-entries").setAttribute("aria-pressed", String(!groups));
    $("#groups-view").hidden = !groups;
    $("#entries-view").hidden = groups;
    $("#entries-list").hidden = groups;
    if (groups) {
      $("#review-status").textContent = ""; // the one-by-one view's count
      return loadGroups();
    }
    if (grouped.entriesStale) {
      grouped.entriesStale = false;
      return reload();
    }
    return undefined;
  }

  // ---------------------------------------------------------------- keyboard shortcuts
  const typing = (target) => target instanceof HTMLElement && (target.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(target.tagName));
  const articles = () => [...document.querySelectorAll("#entries article")];
  const current = () => (document.activeElement && document.activeElement.closest("#entries article")) || null;

  function step(by) {
    const all = articles();
    if (!all.length) return;
    const here = all.indexOf(current());
    const next = all[here < 0 ? (by > 0 ? 0 : all.length - 1) : Math.min(all.length - 1, Math.max(0, here + by))];
    next.querySelector("h3").focus();
    next.scrollIntoView({ block: "start" });
  }

  function onShortcut(event) {
    if (event.ctrlKey || event.metaKey || event.altKey || typing(event.target) || $("#queue").hidden || groupsShown()) return;
    const entry = current() || articles()[0];
    const actions = {
      j: () => step(1),
      n: () => step(1),
      k: () => step(-1),
      p: () => step(-1),
      a: () => entry && entry.querySelector('[data-action="accept"]').click(),
      o: () => {
        const score = entry && entry.querySelector('[data-action="score"]');
        if (score) {
          score.focus();
          score.select();
        }
      },
      x: () => {
        const box = entry && entry.querySelector(".bulk-pick");
        if (box) box.click();
      },
    };
    const run = actions[event.key];
    if (!run) return;
    event.preventDefault();
    run();
  }

  // ---------------------------------------------------------------- recent reviews
  async function loadRecent() {
    clearError();
    $("#recent-status").textContent = t("loading");
    try {
      const { records } = await api("GET", "/review/audit/recent?limit=50");
      // Newest first: an action is undoable only if nothing undid it since.
      const newest = new Map();
      for (const record of records) if (!newest.has(record.target_id)) newest.set(record.target_id, record);
      const undoable = (record) => newest.get(record.target_id) === record;
      $("#recent-rows").replaceChildren(...records.map((record) => el("tr", {},
        el("td", {}, el("time", { datetime: record.at, text: when(record.at) })),
        el("td", {}, userText(record.who_name || record.who)),
        el("td", { text: actionWords(record) }),
        el("td", {}, targetCell(record)),
        el("td", {}, record.learner_id
          ? [record.learner_name ? userText(record.learner_name) : null, record.learner_name ? " " : null,
            el("span", { class: "meta", title: record.learner_id, text: t("desk.learner_short", { id: shortId(record.learner_id) }) })]
          : "–"),
        el("td", { text: change(record) || "–" }),
        el("td", {}, record.note ? userText(record.note) : "–"),
        el("td", {}, undoable(record) ? undoButton(record) : "–"))));
      $("#recent-status").textContent = records.length ? t("desk.recent.count", { count: records.length }) : t("desk.recent.none");
    } catch (error) {
      $("#recent-status").textContent = "";
      reportError(error);
    }
  }

  /* The item (its stem, linking to its history) and, for an answer, a link to the answer's history. */
  function targetCell(record) {
    const link = (id, text) => el("a", { href: `#history=${encodeURIComponent(id)}`, text });
    if (record.target_kind === "bulk") return t("desk.target.bulk", { count: (record.after.accepted || record.before.accepted || []).length });
    if (record.target_kind === "group") return t("desk.target.group", { count: (record.after.reviewed || record.after.reverted || []).length });
    const item = record.question_id || (record.target_kind === "question" ? record.target_id : null);
    return [
      record.stem ? userText(record.stem, "bdi", { class: "stem-short" }) : el("span", { class: "meta", text: SleaI18n.named("desk.target.kind", record.target_kind) === record.target_kind ? `${record.target_kind} ${shortId(record.target_id)}` : t(`desk.target.kind.${record.target_kind}`, { id: shortId(record.target_id) }) }),
      el("br"),
      item ? link(item, t("desk.target.item_history")) : null,
      record.target_kind === "attempt" ? " · " : null,
      record.target_kind === "attempt" ? link(record.target_id, t("desk.target.answer_history")) : null,
    ];
  }

  function undoButton(record) {
    const offer = (what, send) => el("button", { type: "button", class: "quiet", text: t("desk.undo.button"), "aria-label": what, onclick: () => {
      offerUndo(what, send);
      showView("queue");
      $("#undo-note").focus();
    } });
    if (record.action === "retire") return offer(t("desk.undo.retire_recent", { stem: record.stem || shortId(record.target_id) }), unretire(record.target_id));
    if (record.action === "bulk_accept") return offer(t("desk.undo.bulk_recent", { count: (record.after.accepted || []).length }), revertBulk(record.target_id));
    const item = record.stem ? `“${record.stem}”` : shortId(record.target_id);
    if (record.action === "override" || record.action === "confirm" || record.action === "accept") {
      return offer(t("desk.undo.grade_recent", { item, after: record.after.score, before: record.before.score }), undoReview(record.target_id));
    }
    if (record.action === "group_grade") return offer(t("desk.undo.group_recent", { count: (record.after.reviewed || []).length }), revertGroup(record.target_id));
    if (record.action === "edit") return offer(t("desk.undo.edit_recent", { item }), revertEdit(record.target_id));
    return "–";
  }

  /* #history=<id>: every review of one item or answer, oldest first. */
  async function showHistory() {
    const match = /^#history=(.+)$/.exec(window.location.hash);
    if (!match) return;
    const target = decodeURIComponent(match[1]);
    try {
      const { records } = await api("GET", `/review/audit?target_id=${encodeURIComponent(target)}`);
      $("#target-title").textContent = records.length && records[0].stem ? t("desk.history.of_stem", { stem: records[0].stem }) : t("desk.history.of_id", { id: shortId(target) });
      $("#target-records").replaceChildren(...(records.length ? records.map(auditItem) : [el("li", { text: t("desk.history.none_target") })]));
      $("#target-history").hidden = false;
      $("#target-history").scrollIntoView({ block: "start" });
    } catch (error) {
      reportError(error);
    }
  }

  // ---------------------------------------------------------------- item analysis
  /* GET /review/items, a page at a time: the server filters, sorts (flagged items first) and pages;
     every text goes into the page as text (el's `text`), never as markup. */
  const dash = "–";
  const given = (value) => value !== null && value !== undefined;
  const fixed = (digits) => (value) => (given(value) ? Number(value).toFixed(digits) : dash);
  const percent = (value) => (given(value) ? `${Math.round(value * 100)}%` : dash);
  const COLUMNS = [
    // [sort key, its heading's key, how a value is shown (null: text), its description's key (the heading's title)]
    ["question_id", "desk.col.question_id", null, "desk.col.question_id.desc"],
    ["category", "desk.col.category", (v) => (v ? SleaI18n.named("category", v) : dash), ""],
    ["item_type", "desk.col.item_type", (v) => (v ? SleaI18n.named("desk.type", v) : dash), ""],
    ["label", "desk.col.label", (v) => (given(v) ? String(v) : dash), "desk.col.label.desc"],
    ["b", "desk.col.b", fixed(2), "desk.col.b.desc"],
    ["se", "desk.col.se", fixed(2), "desk.col.se.desc"],
    ["answers", "desk.col.answers", (v) => String(v), ""],
    ["facility", "desk.col.facility", percent, "desk.col.facility.desc"],
    ["discrimination", "desk.col.discrimination", fixed(2), "desk.col.discrimination.desc"],
    ["infit", "desk.col.infit", fixed(2), "desk.col.infit.desc"],
    ["outfit", "desk.col.outfit", fixed(2), "desk.col.outfit.desc"],
    ["exposure", "desk.col.exposure", percent, "desk.col.exposure.desc"],
  ];
  const listing = { sort: "b", order: "asc", cursor: null, shown: 0 };
  /* What a flag means and what to do about it, in plain words (desk.flag.*; its tag: desk.flag_tag.*). */
  const hasWords = (key) => key in SleaI18n.MESSAGES.en;
  const flagAdvice = (flag) => (hasWords(`desk.flag.${flag}`) ? t(`desk.flag.${flag}`) : "");
  const flagWords = (flag) => (hasWords(`desk.flag_tag.${flag}`) ? t(`desk.flag_tag.${flag}`) : flag.replace(/_/g, " "));

  function itemsQuery() {
    const query = new URLSearchParams({ limit: "50", sort: listing.sort, order: listing.order });
    if ($("#items-category").value) query.set("category", $("#items-category").value);
    if ($("#items-type").value) query.set("item_type", $("#items-type").value);
    if ($("#items-flagged").checked) query.set("flagged", "true");
    return query;
  }

  function renderHead() {
    $("#items-head").replaceChildren(
      ...COLUMNS.map(([key, heading, , description]) => {
        const active = listing.sort === key;
        const direction = listing.order === "asc" ? "ascending" : "descending";
        return el("th", { scope: "col", "aria-sort": active ? direction : "none", title: description ? t(description) : null },
          el("button", {
            type: "button",
            text: `${t(heading)}${active ? (listing.order === "asc" ? " ▲" : " ▼") : ""}`,
            onclick: () => {
              listing.order = active && listing.order === "asc" ? "desc" : "asc";
              listing.sort = key;
              loadItems().catch(reportError);
            },
          }));
      }),
      el("th", { scope: "col", text: t("desk.col.flags") }),
    );
  }

  function itemRow(row) {
    const cells = COLUMNS.slice(1).map(([key, , format]) =>
      el("td", { class: format ? "num" : null, text: format ? format(row[key]) : row[key] || dash }));
    return el("tr", { class: row.flags.length ? "flagged" : null, "data-item": row.question_id },
      el("th", { scope: "row" }, el("span", { class: "meta", text: row.question_id }), el("br"), row.stem),
      cells,
      el("td", {},
        row.flags.map((flag) => el("p", { class: "flag" },
          el("span", { class: "tag", "data-flag": flag, text: flagWords(flag) }), " ", flagAdvice(flag))),
        row.in_review ? el("span", { class: "meta", text: t("desk.items.in_queue") }) : null,
        row.status === "retired" ? el("span", { class: "meta", text: t("desk.items.retired") }) : null),
    );
  }

  function addItems(page, replace) {
    listing.cursor = page.next_cursor || null;
    if (replace) {
      $("#items-rows").replaceChildren();
      listing.shown = 0;
    }
    $("#items-rows").append(...page.items.map(itemRow));
    listing.shown += page.items.length;
    $("#items-more").hidden = !listing.cursor;
    $("#items-status").textContent = page.total
      ? t("desk.items.shown", { shown: listing.shown, total: page.total })
      : page.last_calibrated_at
        ? t("desk.items.no_match")
        : t("desk.items.none_yet");
    $("#items-calibrated").textContent = page.last_calibrated_at
      ? t("desk.items.calibrated_at", { when: when(page.last_calibrated_at) })
      : t("desk.items.never");
    if (replace) showFlaggedLearners(page.flagged_learners || []);
  }

  /* Learners person fit flagged (first page only): who, what was seen in their answers and what to
     do, in the reader's words; the statistics and the stored reason in a Details fold. */
  function showFlaggedLearners(learners) {
    $("#flagged-learners").hidden = !learners.length;
    $("#flagged-learners-list").replaceChildren(...learners.map((learner) => el("li", { "data-learner": learner.user_id },
      el("strong", {}, t("desk.flagged.learner", { id: "" }), userText(learner.user_id)),
      el("span", { class: "meta", text: t("desk.flagged.meta", {
        answers: learner.answers, categories: learner.categories.map((c) => SleaI18n.named("category", c)).join(", "), when: when(learner.flagged_at),
      }) }),
      ...(learner.seen || []).map((seen) => el("p", { class: "seen", text: hasWords(`desk.seen.${seen}`) ? t(`desk.seen.${seen}`) : seen })),
      el("p", { class: "todo", text: t("desk.flagged.todo") }),
      detailsFold([[t("desk.flagged.recorded"), learner.reason], ["lz", learner.lz], ["z", learner.exposure_z]], learner.user_id))));
  }

  async function loadItems(more = false) {
    clearError();
    const query = itemsQuery();
    if (more && listing.cursor) query.set("cursor", listing.cursor);
    renderHead();
    try {
      addItems(await api("GET", `/review/items?${query}`), !more);
    } catch (error) {
      reportError(error);
    }
  }


  function showView(view) {
    for (const [id, name] of [["#tab-queue", "queue"], ["#tab-items", "items"], ["#tab-recent", "recent"]]) {
      if (view === name) $(id).setAttribute("aria-current", "page");
      else $(id).removeAttribute("aria-current");
    }
    show(view);
    if (view === "items") loadItems().catch(reportError);
    if (view === "recent") loadRecent();
  }

  // ---------------------------------------------------------------- language
  /* The desk in the reviewer's language: their choice (remembered in this browser), else the
     browser's (navigator.languages: ko-KR reads Korean). A change redraws what is shown from the
     state already read (the queue's entries, the groups), and reads the other views again. */
  function useLanguage(language) {
    $("#language").value = SleaI18n.set(language);
  }

  function redraw() {
    if ($("#who").dataset.name) $("#who").textContent = t("signed_in_as", { name: $("#who").dataset.name });
    if (stats) renderStats();
    for (const article of articles()) {
      const entry = known.get(article.dataset.entry);
      if (entry) article.replaceWith(renderEntry(entry, ++rendered));
    }
    const empty = $("#entries > p");
    if (empty) empty.textContent = t("desk.queue.empty");
    updateBulk();
    if (grouped.groups.size) showGroups();
    if (!$("#items").hidden) loadItems().catch(reportError);
    if (!$("#recent").hidden) loadRecent();
  }

  document.addEventListener("DOMContentLoaded", () => {
    useLanguage(SleaI18n.initial());
    $("#language").addEventListener("change", () => {
      localStorage.setItem(SleaI18n.CHOICE_KEY, $("#language").value);
      useLanguage($("#language").value);
      redraw();
    });
    $("#more").addEventListener("click", loadMore);
    $("#queue-filters").addEventListener("submit", (event) => {
      event.preventDefault();
      if (groupsShown()) loadGroups();
      else reload();
    });
    $("#queue-filters").addEventListener("change", (event) => {
      if (event.target.tagName === "SELECT") {
        if (groupsShown()) loadGroups();
        else reload();
      }
    });
    $("#view-entries").addEventListener("click", () => showQueueAs(false));
    $("#view-groups").addEventListener("click", () => showQueueAs(true));
    $("#groups-more").addEventListener("click", () => loadGroups(false));
    $("#select-all").addEventListener("change", () => {
      for (const box of picks()) box.checked = $("#select-all").checked;
      updateBulk();
    });
    $("#bulk-accept").addEventListener("click", askBulk);
    $("#bulk-confirm").addEventListener("submit", bulkAccept);
    $("#bulk-cancel").addEventListener("click", () => {
      $("#bulk-confirm").hidden = true;
    });
    $("#undo").addEventListener("submit", runUndo);
    $("#undo-close").addEventListener("click", () => {
      $("#undo").hidden = true;
    });
    window.addEventListener("hashchange", showHistory);
    document.addEventListener("keydown", onShortcut);
    $("#items-more").addEventListener("click", () => loadItems(true));
    $("#items-filters").addEventListener("change", () => loadItems());
    $("#items-filters").addEventListener("submit", (event) => event.preventDefault());
    $("#tab-queue").addEventListener("click", () => showView("queue"));
    $("#tab-items").addEventListener("click", () => showView("items"));
    $("#tab-recent").addEventListener("click", () => showView("recent"));
    Slea.boot(() => load().catch(reportError));
  });
})();
