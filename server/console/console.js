// A choice marked data-autosubmit (the record browser's format) submits
// its form at once: the page is re-read in the new format.
for (const el of document.querySelectorAll("select[data-autosubmit]")) {
  el.addEventListener("change", () => el.form.requestSubmit());
}
