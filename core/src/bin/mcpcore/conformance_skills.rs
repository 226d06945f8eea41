//! The skills of the conformance fixture (the Skills extension, SEP-2640): what the suite's
//! `sep-2640-skills-enumeration`, `-manifest` and `-directory` scenarios read. One skill with a
//! supporting file, a directory with a subdirectory (the directory scenario needs one to
//! descend into), and a skill nested in a prefix.

use mcpcore::resources::ResourceRegistry;
use mcpcore::skills::{SkillFiles, SkillRegistry};
use std::sync::Arc;

const PDF: &str = "---
name: pdf-processing
description: Extract, fill, and assemble PDF documents
license: Apache-2.0
metadata:
  version: \"2.1.0\"
---

# PDF processing

Read `references/FORMS.md` before filling a form; pick a template from `templates/`.
";

const REFUNDS: &str = "---
name: refunds
description: Process customer refund requests per company policy
---

# Refunds

Answer with the letter in `examples/email.md`.
";

/// The fixture's skills, served from `resources`.
pub(crate) fn skills(resources: Arc<ResourceRegistry>) -> mcpcore::Result<Arc<SkillRegistry>> {
    let skills = SkillRegistry::new(resources);
    skills.add(
        SkillFiles::new("pdf-processing")
            .file("SKILL.md", PDF)
            .file("references/FORMS.md", "# Forms\n\nFill every field in capitals.\n")
            .file("templates/invoice.md", "# Invoice\n")
            .file("templates/regional/eu-invoice.md", "# EU invoice\n"),
    )?;
    skills.add(
        SkillFiles::new("acme/billing/refunds")
            .file("SKILL.md", REFUNDS)
            .file("examples/email.md", "Dear customer, your refund is on its way.\n"),
    )?;
    Ok(Arc::new(skills))
}
