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
      parts.push(el("span", { class: "control-char", title: "a bidirectional control character, shown not applied", text: `[${codePoint(match[0])}]` }));
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
        el("span", { class: "more-hint", text: ` Show all of ${what} (${value.length.toLocaleString()} characters)` })),
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

  const row = (label, value) => (value === null || value === undefined || value === "" ? null : el("p", {}, el("strong", { text: `${label}: ` }), userText(value)));

  function itemColumn(entry, name) {
    const q = entry.question;
    // A short answer's key: its terms as the learner's feedback names them (whole words).
    const key = q.correct_answer || (q.key_terms || q.correct_keywords || []).join(", ");
    return el("div", {},
      el("h4", { text: "Item" }),
      el("p", { class: "meta", text: `${q.type || "item"} · ${q.category || "?"} · ${q.language || "?"} · difficulty ${q.difficulty ?? "?"} · ${q.status}` }),
      collapsible(q.stem, `the stem of ${name}`),
      q.choices && q.choices.length ? el("ul", {}, q.choices.map((c) => el("li", {}, userText(c)))) : null,
      el("p", {}, el("strong", { text: "Key: " }), userText(key || "–", "bdi", { class: "key" })),
      row("Reference answer", q.reference_answer),
      q.explanation ? el("details", {}, el("summary", { text: `Explanation of ${name}` }), userText(q.explanation, "p", { class: "explanation" })) : null,
      q.rested_at ? el("p", { class: "rested" }, SleaI18n.t("review.rested", {
        when: when(q.rested_at), why: SleaI18n.t(`review.rested.${q.rest_reason === "farm" || q.rest_reason === "compromised" ? q.rest_reason : "exposure"}`),
      })) : null,
      q.reports && q.reports.length ? el("div", {}, el("strong", { text: "Learners' reports:" }), el("ul", {}, q.reports.map((r) => el("li", {}, userText(r.reason))))) : null,
      entry.attempt ? el("div", {}, el("h4", { text: "Learner's answer" }), collapsible(entry.attempt.user_answer, name)) : null,
    );
  }

  function gradeColumn(entry) {
    const a = entry.attempt;
    const q = entry.question;
    if (!a) {
      return el("div", {},
        el("h4", { text: "Statistics" }),
        row("Validation score", q.validation_score),
        row("Answered", q.usage_count),
        row("Answered correctly", q.correct_count),
      );
    }
    return el("div", {},
      el("h4", { text: a.proposal ? "Grade (final)" : "Automatic grade" }),
      el("p", { class: "score", text: `${a.score} / 100 ${a.is_correct ? "(pass)" : "(fail)"}` }),
      a.proposal
        ? el("p", { class: "proposal" },
          el("strong", { text: `Proposed change: ${a.score} → ${a.proposal.score}, by ` }),
          userText(a.proposal.by_name || a.proposal.by), " — “", userText(a.proposal.note), "”. ",
          "A final grade changes only when a second reviewer confirms it.")
        : null,
      row("Confidence", `${Math.round(a.confidence * 100)}%`),
      row("Reasoning", a.reasoning),
      row("Keywords matched", (a.keyword_matches || []).join(", ")),
      row("Feedback", a.feedback),
    );
  }

  /* The review record of the entry, read when first opened (GET /review/audit). */
  function historyOf(entry, name) {
    const list = el("ol", { class: "review-history" });
    const details = el("details", { class: "history-box" },
      el("summary", { text: `Review history of ${name}` }), list);
    let read = false;
    details.addEventListener("toggle", async () => {
      if (!details.open || read) return;
      read = true;
      list.replaceChildren(el("li", { text: "Loading…" }));
      try {
        const { records } = await api("GET", `/review/audit?target_id=${encodeURIComponent(entry.entry_id)}`);
        list.replaceChildren(...(records.length ? records.map(auditItem) : [el("li", { text: "No earlier reviews." })]));
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
    if ("proposed_score" in after) return `proposed score ${before.score ?? "–"} → ${after.proposed_score}, not applied`;
    if (record.action === "bulk_accept") return `${(after.accepted || []).length} grades accepted`;
    if (record.action === "revert_bulk" || record.action === "revert_group") return `${(after.reverted || []).length} reverted, ${(after.kept || []).length} kept`;
    if (record.action === "group_grade") return `${(after.reviewed || []).length} answers graded ${after.score}`;
    if (record.action === "revert_edit") return "text and key as before the edit";
    if (before.drawable === false && after.drawable === true) return SleaI18n.t("review.change.drawable");
    if (record.changed === false) return record.action === "revert_accept" ? "back to unreviewed" : "kept as it was";
    if ("score" in before || "score" in after) return `score ${before.score ?? "–"} → ${after.score ?? "–"}`;
    if ("status" in after) return `status ${before.status ?? "–"} → ${after.status}`;
    return "";
  };

  const ACTIONS = {
    accept: "accepted",
    override: "overrode the grade",
    propose_override: "proposed a change",
    confirm: "confirmed a proposed change",
    reject_override: "rejected a proposed change",
    retire: "retired",
    unretire: "un-retired",
    edit: "edited",
    bulk_accept: "accepted in bulk",
    revert_bulk: "reverted a bulk accept",
    revert_accept: "reverted an accept",
    undo_review: "undid a review",
    group_grade: "graded a group",
    revert_group: "reverted a group grade",
    revert_edit: "undid an edit",
  };
  const actionWords = (record) => ACTIONS[record.action] || record.action.replace(/_/g, " ");

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
    const short = stem.length > 48 ? `${stem.slice(0, 47)}…` : stem || `item ${shortId(entry.question.question_id)}`;
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
      return reportError("Give a reason for undoing: it is kept in the review record.");
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
    return "Retirement undone: the question is active again.";
  };

  const revertBulk = (bulkId) => async (note) => {
    const done = await api("POST", `/review/bulk/${encodeURIComponent(bulkId)}/revert`, { note });
    await refreshQueue();
    return `${done.reverted.length} grade${done.reverted.length === 1 ? "" : "s"} back in the queue` +
      (done.kept.length ? `; ${done.kept.length} reviewed since, kept.` : ".");
  };

  const undoReview = (attemptId) => async (note) => {
    const done = await api("POST", `/review/attempts/${encodeURIComponent(attemptId)}/undo`, { note });
    await refreshQueue();
    return `Grade change undone: the score is ${done.score} again.`;
  };

  const revertGroup = (groupId) => async (note) => {
    const done = await api("POST", `/review/groups/${encodeURIComponent(groupId)}/revert`, { note });
    await refreshQueue();
    return `${done.reverted.length} answer${done.reverted.length === 1 ? "" : "s"} of the group reverted` +
      (done.kept.length ? `; ${done.kept.length} reviewed since, kept.` : ".");
  };

  const revertEdit = (questionId) => async (note) => {
    await api("POST", `/review/questions/${encodeURIComponent(questionId)}/revert-edit`, { note });
    await refreshQueue();
    return "Edit undone: the question's text and key are as they were.";
  };

  function decisionColumn(entry, id, name) {
    const note = el("textarea", { id: `note-${id}`, rows: 2, maxlength: 1000, "aria-label": `Reason for your decision on ${name}` });
    const parts = [
      el("h4", { text: "Your decision" }),
      el("label", { for: `note-${id}`, text: entry.kind === "attempt" ? "Reason (required to override; the learner sees it)" : "Reason (required to retire or edit)" }),
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
        return reportError(`Give a reason to ${body.action === "override" ? "override the grade" : `${body.action} the question`}: it is kept in the review record.`);
      }
      return act(entry, { ...body, ...(reason ? { note: reason } : {}) });
    };
    if (entry.kind === "attempt" && entry.attempt.proposal) {
      parts.push(el("div", { class: "actions" },
        el("button", { type: "button", text: "Confirm change", "aria-label": `Confirm the proposed change to ${name}`, "data-action": "accept", onclick: () => send({ action: "confirm" }) }),
        el("button", { type: "button", class: "quiet", text: "Reject change", "aria-label": `Reject the proposed change to ${name}`, onclick: () => send({ action: "reject" }) })));
      return el("div", {}, parts);
    }
    if (entry.kind === "attempt") {
      const score = el("input", {
        id: `score-${id}`, type: "number", min: 0, max: 100, value: entry.attempt.score,
        "aria-label": `Corrected score (0–100) for ${name}`, "data-action": "score",
      });
      const override = () => {
        const value = Number(score.value);
        if (score.value === "" || !Number.isInteger(value) || value < 0 || value > 100) {
          return reportError("The corrected score must be a whole number from 0 to 100.");
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
        el("button", { type: "button", text: "Accept grade", "aria-label": `Accept grade for ${name}`, "data-action": "accept", onclick: () => send({ action: "accept" }) }),
        el("label", { for: `score-${id}`, text: "Corrected score (0–100)" }),
        score,
        el("button", { type: "button", text: "Override score", "aria-label": `Override score for ${name}`, onclick: override }),
      );
      return el("div", {}, parts);
    }
    const q = entry.question;
    const stem = el("textarea", { id: `stem-${id}`, rows: 3, "aria-label": `Stem of ${name}` });
    stem.value = q.stem || "";
    const choices = el("textarea", { id: `choices-${id}`, rows: 4, "aria-label": `Choices of ${name} (one per line)` });
    choices.value = (q.choices || []).join("\n");
    const answer = el("input", { id: `answer-${id}`, value: q.correct_answer || "", "aria-label": `Correct answer of ${name}` });
    const keywords = el("input", { id: `keywords-${id}`, value: (q.correct_keywords || []).join(", "), "aria-label": `Keywords of ${name} (comma-separated)` });
    const edit = el("form", { hidden: true },
      el("label", { for: `stem-${id}`, text: "Stem" }), stem,
      q.choices && q.choices.length ? [el("label", { for: `choices-${id}`, text: "Choices (one per line)" }), choices] : null,
      q.correct_keywords ? [el("label", { for: `keywords-${id}`, text: "Keywords (comma-separated)" }), keywords]
        : [el("label", { for: `answer-${id}`, text: "Correct answer" }), answer],
      el("button", { type: "submit", text: "Save edit", "aria-label": `Save edit of ${name}` }),
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
      el("p", { text: "Retire this question? No learner who has not answered it will see it, and no later round will draw it (or its bank item). You can undo this." }),
      el("button", { type: "button", text: "Yes, retire it", "aria-label": `Yes, retire ${name}`, "data-action": "retire", onclick: () => send({ action: "retire" }) }));
    const toggle = el("button", {
      type: "button", class: "quiet", text: "Edit…", "aria-expanded": "false", "aria-label": `Edit ${name}`,
      onclick: () => {
        edit.hidden = !edit.hidden;
        toggle.setAttribute("aria-expanded", String(!edit.hidden));
        if (!edit.hidden) stem.focus();
      },
    });
    parts.push(
      el("div", { class: "actions" },
        el("button", { type: "button", text: "Accept question", "aria-label": `Accept ${name}`, "data-action": "accept", onclick: () => send({ action: "accept" }) }),
        el("button", { type: "button", class: "quiet", text: "Retire question…", "aria-label": `Retire ${name}`, "aria-expanded": "false", onclick: (event) => {
          retire.hidden = !retire.hidden;
          event.currentTarget.setAttribute("aria-expanded", String(!retire.hidden));
        } }),
        toggle),
      retire,
      edit,
    );
    return el("div", {}, parts);
  }

  const SOURCES = { grade: "unsure grade", report: "learner's report", item: "item flag" };

  function renderEntry(entry, number) {
    const id = `e${number}`;
    const learner = entry.learner_id ? `learner ${shortId(entry.learner_id)}` : null;
    const name = entry.kind === "attempt" ? `answer to ${entryName(entry)}${learner ? ` by ${learner}` : ""}` : `question ${entryName(entry)}`;
    const context = [
      learner ? el("span", { title: entry.learner_id }, learner) : null,
      entry.session_id ? el("span", { title: entry.session_id }, `session ${shortId(entry.session_id)}`) : null,
      entry.round ? `round ${entry.round}` : null,
      el("span", {}, "queued ", el("time", { datetime: entry.queued_at, text: when(entry.queued_at) })),
      SOURCES[entry.source] || entry.source,
    ].filter(Boolean);
    const select = entry.kind === "attempt"
      ? el("label", { class: "check pick" },
        el("input", { type: "checkbox", class: "bulk-pick", "data-attempt": entry.entry_id, "aria-label": `Select ${name} for bulk accept`, onchange: updateBulk }),
        "Select")
      : null;
    return el("article", { class: "entry section", "aria-labelledby": `title-${id}`, "data-entry": entry.entry_id, "data-kind": entry.kind },
      el("div", { class: "entry-head" },
        el("h3", { id: `title-${id}`, tabindex: "-1" },
          entry.kind === "attempt" ? `Answer to ${entryName(entry)} ` : `Question ${entryName(entry)} `,
          entry.reasons.map((reason) => el("span", { class: "tag", text: reason.replace(/_/g, " ") }))),
        select),
      el("p", { class: "meta context" }, context.flatMap((part, index) => (index ? [" · ", part] : [part]))),
      el("div", { class: "cols" }, itemColumn(entry, name), gradeColumn(entry), decisionColumn(entry, id, name)),
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
    if (!articles().length && !cursor && !$("#entries > p")) $("#entries").append(el("p", { text: "The queue is empty. Thank you!" }));
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
        ? `Change proposed: the grade is final, so a second reviewer must confirm ${result.previous_score} → ${body.score}.`
        : result.status === "rejected" ? "Proposed change rejected: the grade stays."
        : result.action === "accept" ? `Grade of ${result.score} accepted.`
        : `Score changed: ${result.previous_score} → ${result.score}.`;
      if (result.status === "applied" && result.action !== "accept") {
        undo = [SleaI18n.t("review.undo.override", { item: entryName(entry), score: result.score, before: result.previous_score }), undoReview(entry.entry_id)];
      }
    } else {
      $("#review-status").textContent = `Question ${result.action === "retire" ? "retired" : result.action === "edit" ? "edited" : "accepted"}.`;
      if (result.action === "retire") undo = [`Undo retiring ${entryName(entry)}?`, unretire(entry.entry_id)];
      if (result.action === "edit") undo = [SleaI18n.t("review.undo.edit", { item: entryName(entry) }), revertEdit(entry.entry_id)];
    }
    // The undo beside the confirmation (an accept has none: an earlier offer is withdrawn with it).
    if (undo) offerUndo(...undo);
    else $("#undo").hidden = true;
    return settle([entry.entry_id]);
  }

  // ---------------------------------------------------------------- bulk accept
  const picks = () => [...document.querySelectorAll("#entries .bulk-pick")];

  function updateBulk() {
    const chosen = picks().filter((box) => box.checked).length;
    $("#bulk-accept").disabled = chosen === 0;
    $("#bulk-accept").textContent = chosen ? `Accept ${chosen} selected grade${chosen === 1 ? "" : "s"}` : "Accept selected grades";
    const all = picks();
    $("#select-all").checked = all.length > 0 && chosen === all.length;
  }

  /* Bulk accept asks first: how many grades, and a reason for the record. */
  function askBulk() {
    const chosen = picks().filter((box) => box.checked).length;
    if (!chosen) return;
    $("#bulk-question").textContent = `Accept ${chosen} grade${chosen === 1 ? "" : "s"} as the grader gave ${chosen === 1 ? "it" : "them"}? You can revert this.`;
    $("#bulk-confirm").hidden = false;
    $("#bulk-note").focus();
  }

  async function bulkAccept(event) {
    if (event) event.preventDefault();
    clearError();
    const note = $("#bulk-note").value.trim();
    if (!note) {
      $("#bulk-note").focus();
      return reportError("Give a reason for accepting these grades: it is kept in the review record.");
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
    $("#review-status").textContent = `${accepted} grade${accepted === 1 ? "" : "s"} accepted.` + (failed.length ? ` Not accepted: ${failed.join("; ")}.` : "");
    if (!bulks.length) $("#undo").hidden = true;
    if (bulks.length) {
      offerUndo(`Revert accepting ${accepted} grade${accepted === 1 ? "" : "s"}?`, async (reason) => {
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
      ? (query.toString() === `limit=${PAGE_SIZE}` ? "" : "No open entries match these filters.")
      : `${total} entr${total === 1 ? "y" : "ies"} shown${cursor ? "; more with Load more" : ""}.`;
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
      $("#entries").append(el("p", { text: "The queue is empty. Thank you!" }));
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
  const grouped = { cursor: null, generation: 0, groups: new Map() }; // a group: its members' ids (in `known`)
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
    return `grader scores ${range(attempts.map((a) => a.score), String)} · grader confidence ` +
      `${range(attempts.map((a) => a.confidence), (c) => `${Math.round(c * 100)}%`)} · ` +
      `${learners} learner${learners === 1 ? "" : "s"}`;
  }

  function memberName(entry) {
    return `${entryName(entry)}${entry.learner_id ? ` by learner ${shortId(entry.learner_id)}` : ""}`;
  }

  function renderMember(entry, groupId) {
    const a = entry.attempt;
    const name = memberName(entry);
    return el("li", { class: "member", "data-entry": entry.entry_id },
      el("label", { class: "check" },
        el("input", { type: "checkbox", class: "split", "data-attempt": entry.entry_id, "data-group": groupId, "aria-label": `Split off ${name}` }),
        el("span", {}, "Split off ", el("span", { class: "meta", text: name }))),
      collapsible(a.user_answer, "the answer"),
      el("p", { class: "meta", text: `grader: ${a.score}/100 (${a.is_correct ? "correct" : "not correct"}), confidence ${Math.round(a.confidence * 100)}%` }));
  }

  function renderGroup(groupId, entries) {
    const face = entries[0];
    const q = face.question;
    const key = q.correct_answer || (q.key_terms || q.correct_keywords || []).join(", ");
    const id = `g${[...grouped.groups.keys()].indexOf(groupId)}`;
    const title = `${entries.length} answer${entries.length === 1 ? "" : "s"} to ${entryName(face).replace(/ · .*$/, "")}`;
    const members = el("ul", { class: "members" }, entries.map((entry) => renderMember(entry, groupId)));
    const score = el("input", { id: `gscore-${id}`, type: "number", min: 0, max: 100, value: face.attempt.score });
    const note = el("textarea", { id: `gnote-${id}`, rows: 2, maxlength: 1000 });
    const grade = el("button", { type: "button", text: "Grade the group…", disabled: true, "aria-label": `Grade the group of ${title}` });
    const confirm = el("div", { class: "confirm", hidden: true });
    const split = () => [...members.querySelectorAll(".split")].filter((box) => box.checked).map((box) => box.dataset.attempt);
    note.addEventListener("input", () => {
      grade.disabled = !note.value.trim();
      confirm.hidden = true;
    });
    members.addEventListener("change", () => {
      confirm.hidden = true;
    });
    grade.addEventListener("click", () => {
      clearError();
      const value = Number(score.value);
      if (score.value === "" || !Number.isInteger(value) || value < 0 || value > 100) {
        return reportError("The group's score must be a whole number from 0 to 100.");
      }
      if (!note.value.trim()) {
        note.focus();
        return reportError("Give a reason for grading the group: it is kept in the review record, and a learner whose grade changes sees it.");
      }
      const excluded = split();
      const graded = entries.length - excluded.length;
      confirm.replaceChildren(
        el("p", { text: `Give ${graded} answer${graded === 1 ? "" : "s"} shown (and any other answer still waiting in this group) a score of ${value}?` +
          (excluded.length ? ` ${excluded.length} split off stay${excluded.length === 1 ? "s" : ""} in the queue.` : "") }),
        el("button", { type: "button", text: "Yes, grade them", onclick: () => gradeGroup(groupId, { score: value, note: note.value.trim(), exclude: excluded }) }),
        el("button", { type: "button", class: "quiet", text: "Cancel", onclick: () => { confirm.hidden = true; } }));
      confirm.hidden = false;
    });
    return el("article", { class: "entry group", "data-group": groupId, "aria-labelledby": `title-${id}` },
      el("h3", { id: `title-${id}`, tabindex: "-1" }, `Group of ${title}`),
      el("p", { class: "meta context", text: spread(entries) }),
      el("div", { class: "cols" },
        el("div", {},
          el("h4", { text: "Representative answer" }),
          collapsible(face.attempt.user_answer, "the answer"),
          el("p", { class: "meta", text: memberName(face) }),
          row("Key", key),
          row("Reference answer", q.reference_answer)),
        el("div", {},
          el("h4", { text: "Grade the whole group" }),
          el("label", { for: `gscore-${id}`, text: "Score for every answer (0–100)" }), score,
          el("label", { for: `gnote-${id}`, text: "Reason (required; a learner whose grade changes sees it)" }), note,
          grade, confirm)),
      el("details", { class: "members-box" },
        el("summary", { text: `Show the ${entries.length} answer${entries.length === 1 ? "" : "s"} (tick one to split it off)` }),
        members));
  }

  function showGroups() {
    const shown = [...grouped.groups.keys()].map((groupId) => [groupId, membersOf(groupId)])
      .filter(([, entries]) => entries.length).sort((one, other) => other[1].length - one[1].length);
    $("#groups").replaceChildren(...shown.map(([groupId, entries]) => renderGroup(groupId, entries)));
    $("#groups-more").hidden = !grouped.cursor;
    const answers = shown.reduce((total, [, entries]) => total + entries.length, 0);
    $("#groups-status").textContent = shown.length
      ? `${shown.length} group${shown.length === 1 ? "" : "s"} of ${answers} answer${answers === 1 ? "" : "s"} shown${grouped.cursor ? "; more with Load more groups" : ""}.`
      : grouped.cursor ? "No group on this page: more with Load more groups." : "No provisional grade waits for a reviewer here.";
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
    const shown = membersOf(groupId);
    const named = (attemptId) => {
      const entry = shown.find((member) => member.entry_id === attemptId);
      return entry ? memberName(entry) : `answer ${shortId(attemptId)}`;
    };
    const left = done.results.filter((result) => !["reviewed", "excluded"].includes(result.status));
    const excluded = done.results.length - done.reviewed - left.length;
    const message = `Group graded: ${done.reviewed} answer${done.reviewed === 1 ? "" : "s"} scored ${done.score}` +
      (excluded ? `; ${excluded} split off, still in the queue` : "") +
      (left.length ? `; not graded: ${left.map((r) => `${named(r.attempt_id)} (${r.message || r.status.replace(/_/g, " ")})`).join("; ")}` : "") + ".";
    $("#groups-status").textContent = message;
    $("#review-status").textContent = message; // beside its undo
    if (done.reviewed) {
      const face = shown[0];
      offerUndo(SleaI18n.plural("review.undo.group", done.reviewed, { item: face ? entryName(face).replace(/ · .*$/, "") : shortId(groupId), score: done.score }), revertGroup(groupId));
    } else {
      $("#undo").hidden = true;
    }
    const settled = done.results.filter((r) => ["reviewed", "already_reviewed"].includes(r.status)).map((r) => r.attempt_id);
    await Promise.all([settle(settled), loadGroups()]);
    $("#groups-status").textContent = `${message} ${$("#groups-status").textContent}`;
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
    $("#recent-status").textContent = "Loading…";
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
            el("span", { class: "meta", title: record.learner_id, text: `learner ${shortId(record.learner_id)}` })]
          : "–"),
        el("td", { text: change(record) || "–" }),
        el("td", {}, record.note ? userText(record.note) : "–"),
        el("td", {}, undoable(record) ? undoButton(record) : "–"))));
      $("#recent-status").textContent = records.length ? `${records.length} latest actions.` : "No reviews yet.";
    } catch (error) {
      $("#recent-status").textContent = "";
      reportError(error);
    }
  }

  /* The item (its stem, linking to its history) and, for an answer, a link to the answer's history. */
  function targetCell(record) {
    const link = (id, text) => el("a", { href: `#history=${encodeURIComponent(id)}`, text });
    if (record.target_kind === "bulk") return `${(record.after.accepted || record.before.accepted || []).length} answers (bulk)`;
    if (record.target_kind === "group") return `${(record.after.reviewed || record.after.reverted || []).length} answers (group)`;
    const item = record.question_id || (record.target_kind === "question" ? record.target_id : null);
    return [
      record.stem ? userText(record.stem, "bdi", { class: "stem-short" }) : el("span", { class: "meta", text: `${record.target_kind} ${shortId(record.target_id)}` }),
      el("br"),
      item ? link(item, "item history") : null,
      record.target_kind === "attempt" ? " · " : null,
      record.target_kind === "attempt" ? link(record.target_id, "answer history") : null,
    ];
  }

  function undoButton(record) {
    const offer = (what, send) => el("button", { type: "button", class: "quiet", text: "Undo…", "aria-label": what, onclick: () => {
      offerUndo(what, send);
      showView("queue");
      $("#undo-note").focus();
    } });
    if (record.action === "retire") return offer(`Undo retiring “${record.stem || shortId(record.target_id)}”?`, unretire(record.target_id));
    if (record.action === "bulk_accept") return offer(`Revert this bulk accept of ${(record.after.accepted || []).length} grades?`, revertBulk(record.target_id));
    const item = record.stem ? `“${record.stem}”` : shortId(record.target_id);
    if (record.action === "override" || record.action === "confirm") {
      return offer(`Undo this grade change on ${item} (score ${record.after.score} back to ${record.before.score})?`, undoReview(record.target_id));
    }
    if (record.action === "group_grade") return offer(`Revert this group grade of ${(record.after.reviewed || []).length} answers?`, revertGroup(record.target_id));
    if (record.action === "edit") return offer(`Undo the edit of ${item}?`, revertEdit(record.target_id));
    return "–";
  }

  /* #history=<id>: every review of one item or answer, oldest first. */
  async function showHistory() {
    const match = /^#history=(.+)$/.exec(window.location.hash);
    if (!match) return;
    const target = decodeURIComponent(match[1]);
    try {
      const { records } = await api("GET", `/review/audit?target_id=${encodeURIComponent(target)}`);
      $("#target-title").textContent = records.length && records[0].stem ? `History of “${records[0].stem}”` : `History of ${shortId(target)}`;
      $("#target-records").replaceChildren(...(records.length ? records.map(auditItem) : [el("li", { text: "No reviews of this yet." })]));
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
    // [sort key, heading, how a value is shown (null: text), its description for the heading's title]
    ["question_id", "Item", null, "the item's id and stem"],
    ["category", "Category", null, ""],
    ["item_type", "Type", null, ""],
    ["label", "Label", (v) => (given(v) ? String(v) : dash), "the generator's difficulty label, 1–10"],
    ["b", "b", fixed(2), "calibrated difficulty in logits"],
    ["se", "SE", fixed(2), "standard error of b"],
    ["answers", "Answers", (v) => String(v), ""],
    ["facility", "Facility", percent, "mean score"],
    ["discrimination", "Discrimination", fixed(2), "point-biserial correlation with ability"],
    ["infit", "Infit", fixed(2), "information-weighted fit; near 1 is good"],
    ["outfit", "Outfit", fixed(2), "outlier-sensitive fit; near 1 is good"],
    ["exposure", "Exposure", percent, "share of the category's learners who answered it"],
  ];
  const listing = { sort: "b", order: "asc", cursor: null, shown: 0 };
  /* What a flag means and what to do about it, in plain words. */
  const FLAG_ADVICE = {
    too_easy: "Almost everyone gets it right: make it harder or label it easier.",
    too_hard: "Almost no one gets it right: check the key and the wording, or label it harder.",
    difficulty_mismatch: "Its label does not match how hard learners find it: correct the label or the item.",
    label_far: "Its measured difficulty is far from its label: correct the label, or edit the item to fit it.",
    misfit: "Answers do not follow the expected pattern: check for an ambiguous wording or a wrong key, then edit or retire it.",
  };

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
        return el("th", { scope: "col", "aria-sort": active ? direction : "none", title: description || null },
          el("button", {
            type: "button",
            text: `${heading}${active ? (listing.order === "asc" ? " ▲" : " ▼") : ""}`,
            onclick: () => {
              listing.order = active && listing.order === "asc" ? "desc" : "asc";
              listing.sort = key;
              loadItems().catch(reportError);
            },
          }));
      }),
      el("th", { scope: "col", text: "Flags" }),
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
          el("span", { class: "tag", text: flag.replace(/_/g, " ") }), " ", FLAG_ADVICE[flag] || "")),
        row.in_review ? el("span", { class: "meta", text: " in the queue" }) : null,
        row.status === "retired" ? el("span", { class: "meta", text: " retired" }) : null),
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
      ? `${listing.shown} of ${page.total} items shown.`
      : page.last_calibrated_at
        ? "No calibrated items match these filters."
        : "No item has been calibrated yet: statistics appear a few seconds after items are answered, the difficulty and flags when the refit next runs (locally every minute while make serve runs).";
    $("#items-calibrated").textContent = page.last_calibrated_at
      ? `Calibration last changed an item at ${when(page.last_calibrated_at)}.`
      : "The calibration job has not calibrated any item yet.";
    if (replace) showFlaggedLearners(page.flagged_learners || []);
  }

  /* Learners person fit flagged (first page only): who, since when, and why in plain words. */
  function showFlaggedLearners(learners) {
    $("#flagged-learners").hidden = !learners.length;
    $("#flagged-learners-list").replaceChildren(...learners.map((learner) => el("li", {},
      el("strong", { text: learner.user_id }),
      el("span", { class: "meta", text: ` ${learner.answers} answers, ${learner.categories.join(", ")}, flagged ${when(learner.flagged_at)}` }),
      el("p", { text: learner.reason }))));
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

  document.addEventListener("DOMContentLoaded", () => {
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
