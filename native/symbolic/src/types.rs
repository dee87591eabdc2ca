//! Which class is a subtype of which, as the replay needs it for virtual
//! dispatch, `instanceof`, casts and catch clauses: the program's classes
//! as the analysis crate's [`Hierarchy`] knows them, and beyond them the
//! few JDK types ordinary code tests for.

use testgen_analysis::{jdk_supertypes, Hierarchy};

/// The superclass chain and interfaces of `class`, itself first, as far as
/// the program knows them, then what is known of the JDK's types; always
/// ending with `java/lang/Object`. A class's own supertypes come before
/// those of its supertypes (depth first), so a method found first here is
/// the one virtual dispatch picks among classes.
pub fn supertypes(hierarchy: &Hierarchy, class: &str) -> Vec<String> {
    let mut found: Vec<String> = Vec::new();
    let mut pending = vec![class.to_string()];
    while let Some(next) = pending.pop() {
        if found.contains(&next) {
            continue;
        }
        match hierarchy.get(&next) {
            Some(info) => {
                pending.extend(info.super_name.iter().cloned());
                pending.extend(info.interfaces.iter().cloned());
            }
            None => pending.extend(jdk_supertypes(&next).iter().map(|s| s.to_string())),
        }
        found.push(next);
    }
    if !found.iter().any(|c| c == "java/lang/Object") {
        found.push("java/lang/Object".into());
    }
    found
}

/// Whether an object of runtime class `class` is an instance of `of`.
pub fn is_subtype(hierarchy: &Hierarchy, class: &str, of: &str) -> bool {
    class == of || of == "java/lang/Object" || supertypes(hierarchy, class).iter().any(|s| s == of)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn jdk_types_are_known_beyond_the_program() {
        let none = Hierarchy::default();
        assert!(is_subtype(
            &none,
            "java/lang/String",
            "java/lang/CharSequence"
        ));
        assert!(is_subtype(
            &none,
            "java/lang/NumberFormatException",
            "java/lang/RuntimeException"
        ));
        assert!(!is_subtype(&none, "java/lang/String", "java/lang/Number"));
        assert_eq!(
            supertypes(&none, "java/lang/Integer")
                .last()
                .map(String::as_str),
            Some("java/lang/Object")
        );
    }
}
