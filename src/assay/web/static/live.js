// The live page of a run: follows its server-sent events and writes what they say as text
// (textContent only: a test name is never markup).
(function () {
  "use strict";
  var root = document.getElementById("live");
  if (!root || !window.EventSource) { return; }
  var FINAL = ["completed", "interrupted", "failed", "error"];
  function el(id) { return document.getElementById(id); }
  function text(id, value) { el(id).textContent = String(value); }
  function runLink(runId, label) {
    var a = document.createElement("a");
    a.href = "/runs/" + encodeURIComponent(runId);
    a.textContent = label;
    return a;
  }
  function show(job) {
    var status = el("job-status");
    status.textContent = job.status;
    status.className = "badge run-" + job.status;
    text("job-done", job.done);
    text("job-total", job.total || "?");
    text("job-passed", job.passed);
    text("job-failed", job.failed);
    text("job-errored", job.errored);
    text("job-not_run", job.not_run);
    var bar = el("job-progress");
    bar.max = Math.max(job.total, 1);
    bar.value = job.done;
    if (job.run_id) {
      var run = el("job-run");
      run.textContent = "run ";
      var a = runLink(job.run_id, "");
      var code = document.createElement("code");
      code.textContent = job.run_id.slice(0, 12);
      a.appendChild(code);
      run.appendChild(a);
    }
    var recent = el("job-recent");
    recent.replaceChildren();
    job.recent.forEach(function (r) {
      var li = document.createElement("li");
      var badge = document.createElement("span");
      badge.className = "badge " + r.status;
      badge.textContent = r.status;
      li.appendChild(badge);
      li.appendChild(document.createTextNode(" " + r.test));
      recent.appendChild(li);
    });
    var problems = el("job-problems");
    problems.replaceChildren();
    job.problems.forEach(function (p) {
      var li = document.createElement("li");
      li.textContent = p;
      problems.appendChild(li);
    });
    if (FINAL.indexOf(job.status) >= 0 && job.run_id) {
      var next = el("job-next");
      next.replaceChildren(runLink(job.run_id, "Open the run's results"));
      next.hidden = false;
    }
  }
  var source = new EventSource(root.getAttribute("data-events"));
  source.addEventListener("progress", function (e) { show(JSON.parse(e.data)); });
  source.addEventListener("done", function () { source.close(); });
})();
