// Filters by status, rule and file: findings that do not match are hidden (the form is
// hidden until this runs, so a page read without JavaScript shows every finding).
(function () {
  "use strict";
  var form = document.getElementById("filters");
  var findings = Array.prototype.slice.call(document.querySelectorAll(".finding"));
  var groups = Array.prototype.slice.call(document.querySelectorAll(".group"));
  var shown = document.getElementById("shown");
  function apply() {
    var statuses = {};
    form.querySelectorAll('input[name="status"]').forEach(function (box) { statuses[box.value] = box.checked; });
    var rule = form.elements.rule.value, file = form.elements.file.value, count = 0;
    findings.forEach(function (f) {
      var visible = statuses[f.dataset.status] !== false && (!rule || f.dataset.rule === rule) &&
        (!file || f.dataset.file === file);
      f.classList.toggle("is-hidden", !visible);
      if (visible) { count += 1; }
    });
    groups.forEach(function (g) { g.classList.toggle("is-hidden", !g.querySelector(".finding:not(.is-hidden)")); });
    shown.textContent = count + " of " + findings.length + " shown";
  }
  form.addEventListener("change", apply);
  form.hidden = false;
  apply();
})();
