/* The learner app: start a round, watch it being generated, answer one item per screen, see the
   grade and explanation, report a problem, read the round summary, go on to round 2. Each click
   makes at most one API request (the progress screen polls while the round is generated). */
"use strict";

(() => {
  const { $, el, show, api, reportError, clearError } = Slea;
  const POLL_MS = 700;
  const state = { sessionId: null, round: 1, category: "technical", count: 5, questions: [], index: 0, selected: null };
  let userKey = "";

  const sessionKey = () => `slea.session.${userKey}`;

  async function ensureSession() {
    state.sessionId = sessionStorage.getItem(sessionKey());
    $("#resume").hidden = !state.sessionId; // a session from before this page load: its summary
    if (state.sessionId) return;
    state.sessionId = (await api("POST", "/sessions")).session_id;
    sessionStorage.setItem(sessionKey(), state.sessionId);
  }

  function showStart() {
    $("#start-button").textContent = `Start round ${state.round}`;
    show("start");
  }

  // ------------------------------------------------------------------ starting and generating
  async function startRound() {
    clearError();
    const request = { round: state.round, category: state.category, count: state.count };
    try {
      await api("POST", `/sessions/${state.sessionId}/rounds`, request);
    } catch (error) {
      // Already started (e.g. a reload while it was generating): follow it instead.
      if (!(error instanceof Slea.ApiError && error.code === "ROUND_ALREADY_STARTED")) throw error;
    }
    $("#retry-round").hidden = true;
    $("#progress-title").textContent = `Preparing round ${state.round}…`;
    $("#progress-bar").removeAttribute("value");
    $("#progress-text").textContent = "Starting…";
    show("progress");
    await watchRound();
  }

  async function watchRound() {
    for (;;) {
      const status = await api("GET", `/sessions/${state.sessionId}/rounds/${state.round}`);
      const bar = $("#progress-bar");
      bar.max = status.requested || 1;
      bar.value = status.saved;
      const steps = [`${status.saved} of ${status.requested} questions ready`];
      if (status.generated !== null) steps.push(`${status.generated} written, ${status.valid ?? "?"} passed review`);
      $("#progress-text").textContent = steps.join(" · ");
      if (status.status === "SUCCEEDED") return loadQuestions(status.question_ids);
      if (status.status === "FAILED") {
        $("#progress-title").textContent = `Round ${state.round} could not be prepared`;
        $("#progress-text").textContent = status.error || "The questions could not be generated.";
        $("#retry-round").hidden = false;
        $("#retry-round").focus();
        return;
      }
      await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    }
  }

  async function loadQuestions(ids) {
    const listed = await api("GET", `/sessions/${state.sessionId}/questions`);
    const wanted = new Set(ids || []);
    state.questions = listed.questions.filter((q) => q.round === state.round && (!ids || wanted.has(q.question_id)));
    state.index = 0;
    if (!state.questions.length) {
      reportError("This round has no questions. Please start it again.");
      return showStart();
    }
    showQuestion();
  }

  // ------------------------------------------------------------------ one item per screen
  const letter = (choice) => (/^([A-Za-z])[).:]\s/.exec(choice) || [])[1];

  function showQuestion() {
    const question = state.questions[state.index];
    state.selected = null;
    $("#question-title").textContent = `Question ${state.index + 1} of ${state.questions.length}`;
    $("#question-meta").textContent = `Round ${state.round} · ${question.category} · difficulty ${question.difficulty}`;
    $("#stem").textContent = question.stem;
    const choices = $("#choices");
    choices.replaceChildren();
    const isShort = question.type === "short_answer" || !(question.choices || []).length;
    $("#short").hidden = !isShort;
    $("#short-answer").value = "";
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
            for (const other of choices.children) other.setAttribute("aria-pressed", String(other === event.currentTarget));
          },
        }),
      );
    }
    show("question");
  }

  async function submitAnswer(event) {
    event.preventDefault();
    clearError();
    const question = state.questions[state.index];
    const answer = $("#short").hidden ? state.selected : $("#short-answer").value.trim();
    if (!answer) return reportError($("#short").hidden ? "Please choose an answer first." : "Please write an answer first.");
    $("#submit-answer").disabled = true;
    try {
      showFeedback(await api("POST", `/sessions/${state.sessionId}/answers`, { question_id: question.question_id, user_answer: answer }));
    } catch (error) {
      reportError(error);
      if (error.code === "ALREADY_ANSWERED") nextQuestion();
    } finally {
      $("#submit-answer").disabled = false;
    }
  }

  function showFeedback(result) {
    $("#verdict").textContent = result.is_correct ? "Correct" : "Not quite";
    $("#score").textContent = `Score: ${result.score} / 100`;
    $("#provisional").hidden = !result.needs_review;
    $("#feedback-text").textContent = result.feedback || "";
    $("#explanation").textContent = result.explanation;
    $("#references").replaceChildren(
      ...(result.reference_links || []).map((link) =>
        el("li", {}, el("a", { href: link.url, target: "_blank", rel: "noopener noreferrer", text: link.title || link.url })),
      ),
    );
    const last = state.index + 1 >= state.questions.length;
    $("#next").textContent = last ? "See round summary" : "Next question";
    $("#report-form").hidden = true;
    $("#report-open").setAttribute("aria-expanded", "false");
    $("#report-status").textContent = "";
    $("#report-reason").value = "";
    show("feedback");
  }

  function nextQuestion() {
    state.index += 1;
    if (state.index < state.questions.length) showQuestion();
    else showSummary().catch(reportError);
  }

  async function sendReport(event) {
    event.preventDefault();
    clearError();
    const reason = $("#report-reason").value.trim();
    if (!reason) return reportError("Please say what is wrong with the question.");
    const question = state.questions[state.index];
    await api("POST", `/sessions/${state.sessionId}/questions/${question.question_id}/reports`, { reason });
    $("#report-form").hidden = true;
    $("#report-open").setAttribute("aria-expanded", "false");
    $("#report-status").textContent = "Thank you. A reviewer will look at this question.";
  }

  // ------------------------------------------------------------------ the round summary
  const percent = (value) => (value === null || value === undefined ? "–" : `${Math.round(value)}`);

  async function showSummary() {
    const summary = await api("GET", `/sessions/${state.sessionId}/summary`);
    $("#rounds tbody").replaceChildren(
      ...summary.rounds.map((r) =>
        el("tr", {}, el("td", { text: r.round }), el("td", { text: `${r.answered} of ${r.questions}` }),
          el("td", { text: r.correct }), el("td", { text: percent(r.score) }), el("td", { text: r.pending_review })),
      ),
    );
    $("#to-review").replaceChildren(
      ...(summary.to_review.length
        ? summary.to_review.map((item) => el("li", {}, `${item.stem} `, el("span", { class: "meta", text: `(round ${item.round}, score ${item.score})` })))
        : [el("li", { text: "Nothing: every answer reached the pass mark." })]),
    );
    const next = summary.next_round;
    $("#next-round").hidden = next !== 2;
    $("#next-round-text").textContent =
      next === 2
        ? `Round 2 will be generated at difficulty ${summary.next_difficulty ?? "chosen from your answers"}.`
        : next === 1
          ? "Round 1 is not finished yet."
          : "You have finished both rounds of this session.";
    $("#answers").hidden = true;
    show("summary");
  }

  async function showAnswers() {
    const listed = await api("GET", `/sessions/${state.sessionId}/attempts`);
    $("#answers tbody").replaceChildren(
      ...listed.attempts.map((a) =>
        el("tr", {}, el("td", { text: a.round }), el("td", { text: a.user_answer.slice(0, 120) }), el("td", { text: a.score }),
          el("td", { text: a.reviewed ? "corrected by a reviewer" : a.needs_review ? "awaiting review" : "final" })),
      ),
    );
    $("#answers").hidden = false;
  }

  async function newSession() {
    sessionStorage.removeItem(sessionKey());
    await ensureSession();
    state.round = 1;
    showStart();
  }

  // ------------------------------------------------------------------ wiring
  const guarded = (action) => (event) => {
    clearError();
    Promise.resolve(action(event)).catch(reportError);
  };

  document.addEventListener("DOMContentLoaded", () => {
    $("#start-form").addEventListener("submit", guarded((event) => {
      event.preventDefault();
      state.category = $("#category").value;
      state.count = Number($("#count").value);
      return startRound();
    }));
    $("#retry-round").addEventListener("click", guarded(startRound));
    $("#answer-form").addEventListener("submit", guarded(submitAnswer));
    $("#next").addEventListener("click", guarded(nextQuestion));
    $("#report-open").addEventListener("click", () => {
      const form = $("#report-form");
      form.hidden = !form.hidden;
      $("#report-open").setAttribute("aria-expanded", String(!form.hidden));
      if (!form.hidden) $("#report-reason").focus();
    });
    $("#report-form").addEventListener("submit", guarded(sendReport));
    $("#next-round").addEventListener("click", guarded(() => {
      state.round = 2;
      return startRound();
    }));
    $("#show-answers").addEventListener("click", guarded(showAnswers));
    $("#new-session").addEventListener("click", guarded(newSession));
    $("#resume").addEventListener("click", guarded(showSummary));
    Slea.boot(async (user) => {
      userKey = user.sub;
      try {
        await ensureSession();
      } catch (error) {
        reportError(error);
      }
      showStart();
    });
  });
})();
