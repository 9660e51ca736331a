//! `#[derive(Words)]`: an enum's word table (`locksmith::words::Words`)
//! from its unit variants, in their order, each spelled as its name in
//! kebab case (`SetNxPx` is `set-nx-px`) unless `#[word("...")]` says
//! otherwise. The order is the order in which a refused scenario key
//! lists what it allows. Tested where the trait is (src/words.rs).

use proc_macro2::TokenStream as Tokens;
use quote::quote;
use syn::{Data, DeriveInput, Error, Fields, LitStr, Result};

pub fn expand(input: DeriveInput) -> Result<Tokens> {
    let Data::Enum(data) = &input.data else {
        return Err(Error::new_spanned(
            &input.ident,
            "Words is derived for an enum of unit variants",
        ));
    };
    let name = &input.ident;
    let mut entries = Vec::new();
    for variant in &data.variants {
        if !matches!(variant.fields, Fields::Unit) {
            return Err(Error::new_spanned(variant, "a word stands for a unit variant"));
        }
        let mut word = kebab(&variant.ident.to_string());
        for attr in variant.attrs.iter().filter(|a| a.path().is_ident("word")) {
            word = attr.parse_args::<LitStr>()?.value();
        }
        let ident = &variant.ident;
        entries.push(quote!((#word, #name::#ident)));
    }
    let (impl_generics, ty_generics, where_clause) = input.generics.split_for_impl();
    Ok(quote! {
        impl #impl_generics ::locksmith::words::Words for #name #ty_generics #where_clause {
            const WORDS: &'static [(&'static str, Self)] = &[#(#entries),*];
        }
    })
}

/// `CompareAndDelete` → `compare-and-delete`.
fn kebab(name: &str) -> String {
    let mut out = String::new();
    for (i, c) in name.chars().enumerate() {
        if c.is_uppercase() && i > 0 {
            out.push('-');
        }
        out.extend(c.to_lowercase());
    }
    out
}
