//! `#[derive(Words)]` for the enums a scenario names by word (words.rs),
//! `#[derive(Pack)]` for the byte form of queued states (pack.rs),
//! and `#[derive(Rewrite)]` for locksmith's node states and messages: the walk
//! over a type's fields that visits its growing values and renames its
//! node ids, written from attributes on the fields instead of by hand.
//! The trait, the kinds and the containers they reach through are
//! locksmith's (`src/world/rewrite.rs`, which documents the attributes).
//! The generated code names them `::locksmith::world::...`: from another
//! crate (the end-to-end tests' own actors) as any path into locksmith,
//! and inside locksmith through the `extern crate self as locksmith` of
//! its `lib.rs`.
//!
//! On a struct, or on each variant of an enum (named, tuple or unit):
//!
//! ```ignore
//! #[derive(Rewrite)]
//! enum Msg {
//!     Grant { #[rewrite(value)] id: u32, #[rewrite(ghost)] ghost: u32 },
//!     Replicate { #[rewrite((nested, ghost))] holder: Option<(Request, u32)> },
//!     Resource(#[rewrite] ResourceMsg),
//!     Restarted,
//! }
//! ```
//!
//! becomes `Rewrite::numbers`, calling `Field::<kind::Value>::field_numbers`
//! on `id`, `Field::<kind::Ghost>` on `ghost` and so on, and
//! `Rewrite::rename` for the fields whose kind can hold ids. A field
//! without the attribute is left alone; a type parameter must implement
//! `Rewrite` itself.

use proc_macro::TokenStream;
use proc_macro2::TokenStream as Tokens;
use quote::{format_ident, quote, quote_spanned};
use syn::parse::{Parse, ParseStream};
use syn::punctuated::Punctuated;
use syn::spanned::Spanned;
use syn::{parse_macro_input, parse_quote, Attribute, Data, DeriveInput, Error, Fields, Ident, Meta, Result, Token};

mod pack;
mod words;

/// `#[derive(Words)]`: an enum's word table from its variants (words.rs).
#[proc_macro_derive(Words, attributes(word))]
pub fn derive_words(input: TokenStream) -> TokenStream {
    let input = parse_macro_input!(input as DeriveInput);
    words::expand(input).unwrap_or_else(Error::into_compile_error).into()
}

/// `#[derive(Pack)]`: a type's compact byte form for the search's queue
/// (pack.rs).
#[proc_macro_derive(Pack)]
pub fn derive_pack(input: TokenStream) -> TokenStream {
    let input = parse_macro_input!(input as DeriveInput);
    pack::expand(input).unwrap_or_else(Error::into_compile_error).into()
}

#[proc_macro_derive(Rewrite, attributes(rewrite))]
pub fn derive_rewrite(input: TokenStream) -> TokenStream {
    let input = parse_macro_input!(input as DeriveInput);
    expand(input).unwrap_or_else(Error::into_compile_error).into()
}

/// What a field attribute says its field holds.
enum Kind {
    /// `ghost`, `token`, `value`, `clock` (the `Seq` of that name) or `id`:
    /// the name of its type in `::locksmith::world::kind`.
    Leaf(Ident),
    /// `#[rewrite]` or `nested`: recursed into.
    Nested,
    /// `_`, in a tuple: left alone.
    Skip,
    /// `(kind, kind)` or three: a tuple, element by element.
    Tuple(Vec<Kind>),
}

impl Kind {
    /// Its type in `::locksmith::world::kind`.
    fn ty(&self) -> Tokens {
        match self {
            Kind::Leaf(name) => quote!(::locksmith::world::kind::#name),
            Kind::Nested => quote!(::locksmith::world::kind::Nested),
            Kind::Skip => quote!(::locksmith::world::kind::Skip),
            Kind::Tuple(kinds) => {
                let kinds = kinds.iter().map(Kind::ty);
                quote!((#(#kinds,)*))
            }
        }
    }

    /// Whether it may hold growing values.
    fn numbers(&self) -> bool {
        match self {
            Kind::Leaf(name) => name != "Id",
            Kind::Nested => true,
            Kind::Skip => false,
            Kind::Tuple(kinds) => kinds.iter().any(Kind::numbers),
        }
    }

    /// Whether it may hold node ids.
    fn ids(&self) -> bool {
        match self {
            Kind::Leaf(name) => name == "Id",
            Kind::Nested => true,
            Kind::Skip => false,
            Kind::Tuple(kinds) => kinds.iter().any(Kind::ids),
        }
    }
}

impl Parse for Kind {
    fn parse(input: ParseStream) -> Result<Kind> {
        if input.peek(syn::token::Paren) {
            let inner;
            let paren = syn::parenthesized!(inner in input);
            let kinds: Vec<Kind> = Punctuated::<Kind, Token![,]>::parse_terminated(&inner)?
                .into_iter()
                .collect();
            if !(2..=3).contains(&kinds.len()) {
                return Err(Error::new(paren.span.join(), "a tuple kind has two or three elements"));
            }
            return Ok(Kind::Tuple(kinds));
        }
        if input.peek(Token![_]) {
            input.parse::<Token![_]>()?;
            return Ok(Kind::Skip);
        }
        let name: Ident = input.parse()?;
        let leaf = match name.to_string().as_str() {
            "ghost" => "Ghost",
            "token" => "Token",
            "value" => "Value",
            "clock" => "Clock",
            "id" => "Id",
            "nested" => return Ok(Kind::Nested),
            _ => {
                return Err(Error::new(
                    name.span(),
                    "expected ghost, token, value, clock, id, nested, _ or a tuple of these",
                ))
            }
        };
        Ok(Kind::Leaf(Ident::new(leaf, name.span())))
    }
}

/// The kind a field's attributes give it, if any.
fn kind(attrs: &[Attribute]) -> Result<Option<Kind>> {
    let mut found = None;
    for attr in attrs.iter().filter(|a| a.path().is_ident("rewrite")) {
        if found.is_some() {
            return Err(Error::new_spanned(attr, "one #[rewrite] per field"));
        }
        found = Some(match &attr.meta {
            Meta::Path(_) => Kind::Nested,
            Meta::List(list) => list.parse_args()?,
            Meta::NameValue(_) => return Err(Error::new_spanned(attr, "expected #[rewrite] or #[rewrite(kind)]")),
        });
    }
    Ok(found)
}

/// `#[rewrite]` belongs on fields: anywhere else it would be ignored.
fn no_kind(attrs: &[Attribute]) -> Result<()> {
    match attrs.iter().find(|a| a.path().is_ident("rewrite")) {
        Some(attr) => Err(Error::new_spanned(attr, "#[rewrite] goes on fields")),
        None => Ok(()),
    }
}

/// One method's work on a struct's or a variant's fields: the pattern
/// binding the fields it touches (`{ a: __rewrite_0, 1: __rewrite_1, .. }`)
/// and its calls on them; `None` when it touches none.
struct Walk {
    pattern: Tokens,
    calls: Tokens,
}

/// The walks of `numbers` and of `rename` over `fields`.
fn walks(fields: &Fields) -> Result<(Option<Walk>, Option<Walk>)> {
    let mut numbers = (Vec::new(), Vec::new());
    let mut rename = (Vec::new(), Vec::new());
    for (i, field) in fields.iter().enumerate() {
        let Some(kind) = kind(&field.attrs)? else {
            continue;
        };
        let member = match &field.ident {
            Some(name) => quote!(#name),
            None => {
                let index = syn::Index::from(i);
                quote!(#index)
            }
        };
        let binding = format_ident!("__rewrite_{}", i);
        let ty = kind.ty();
        // Spanned by the field's type, so that a type the kind does not
        // reach (`#[rewrite(id)]` on a `u32`) is reported there.
        let span = field.ty.span();
        if kind.numbers() {
            numbers.0.push(quote!(#member: #binding));
            numbers.1.push(quote_spanned! {span=>
                ::locksmith::world::Field::<#ty>::field_numbers(#binding, visit);
            });
        }
        if kind.ids() {
            rename.0.push(quote!(#member: #binding));
            rename.1.push(quote_spanned! {span=>
                ::locksmith::world::Field::<#ty>::field_rename(#binding, ids);
            });
        }
    }
    let walk = |(members, calls): (Vec<Tokens>, Vec<Tokens>)| {
        (!calls.is_empty()).then(|| Walk {
            pattern: quote!({ #(#members,)* .. }),
            calls: quote!(#(#calls)*),
        })
    };
    Ok((walk(numbers), walk(rename)))
}

fn expand(mut input: DeriveInput) -> Result<Tokens> {
    no_kind(&input.attrs)?;
    let (numbers, rename) = match &input.data {
        Data::Struct(s) => {
            let (numbers, rename) = walks(&s.fields)?;
            let bind =
                |walk: Option<Walk>| walk.map(|Walk { pattern, calls }| quote!(let Self #pattern = self; #calls));
            (bind(numbers), bind(rename))
        }
        Data::Enum(e) => {
            let (mut numbers, mut rename) = (Vec::new(), Vec::new());
            for variant in &e.variants {
                no_kind(&variant.attrs)?;
                let name = &variant.ident;
                let (n, r) = walks(&variant.fields)?;
                numbers.push((quote!(Self::#name), n));
                rename.push((quote!(Self::#name), r));
            }
            (arms(numbers), arms(rename))
        }
        Data::Union(u) => {
            return Err(Error::new(
                u.union_token.span,
                "#[derive(Rewrite)] takes a struct or an enum",
            ))
        }
    };
    // A type parameter's values are walked by its own Rewrite.
    bound_params(&mut input.generics, quote!(::locksmith::world::Rewrite));
    let name = &input.ident;
    let (impl_generics, ty_generics, where_clause) = input.generics.split_for_impl();
    let numbers = numbers.map(|body| {
        quote! {
            #[inline]
            fn numbers(&mut self, visit: &mut impl FnMut(::locksmith::world::Seq, &mut u32)) {
                #body
            }
        }
    });
    let rename = rename.map(|body| {
        quote! {
            #[inline]
            fn rename(&mut self, ids: &dyn Fn(::locksmith::world::Id) -> ::locksmith::world::Id) {
                #body
            }
        }
    });
    Ok(quote! {
        #[automatically_derived]
        impl #impl_generics ::locksmith::world::Rewrite for #name #ty_generics #where_clause {
            #numbers
            #rename
        }
    })
}

/// Asks every type parameter of `generics` to implement `bound`: a
/// derived impl reaches a parameter's values through the parameter's own.
fn bound_params(generics: &mut syn::Generics, bound: Tokens) {
    let params: Vec<Ident> = generics.type_params().map(|p| p.ident.clone()).collect();
    let clause = generics.make_where_clause();
    for param in params {
        clause.predicates.push(parse_quote!(#param: #bound));
    }
}

/// An enum method's match: an arm per variant it touches, and one arm for
/// the rest if any; `None` when it touches no variant.
fn arms(walks: Vec<(Tokens, Option<Walk>)>) -> Option<Tokens> {
    let all = walks.len();
    let arms: Vec<Tokens> = walks
        .into_iter()
        .filter_map(|(path, walk)| walk.map(|Walk { pattern, calls }| quote!(#path #pattern => { #calls })))
        .collect();
    if arms.is_empty() {
        return None;
    }
    let rest = (arms.len() < all).then(|| quote!(_ => {}));
    Some(quote!(match self { #(#arms)* #rest }))
}
