//! `#[derive(Pack)]`: a type's compact byte form for the search's queue
//! (`locksmith::world::Pack`, src/world/pack.rs): a struct's fields in
//! order, an enum's variant index in one byte and then its fields. It
//! writes what serde's derive and postcard write for the same type (the
//! trait's tests compare the two on every bundled scenario's states), in
//! straight-line code instead of through serde's visitors.

use proc_macro2::TokenStream as Tokens;
use quote::{format_ident, quote};
use syn::{Data, DeriveInput, Error, Fields, Ident, Result};

/// The one-byte variant index postcard writes as a varint: below 128 it
/// is one byte.
const MAX_VARIANTS: usize = 128;

pub fn expand(mut input: DeriveInput) -> Result<Tokens> {
    let (pack, unpack, unpack_into) = match &input.data {
        Data::Struct(s) => {
            let (pattern, bindings) = bind(&s.fields);
            let build = build(&s.fields);
            (
                quote!(let Self #pattern = self; #(::locksmith::world::Pack::pack(#bindings, out);)*),
                quote!(Self #build),
                quote!(let Self #pattern = self; #(::locksmith::world::Pack::unpack_into(#bindings, input);)*),
            )
        }
        Data::Enum(e) => {
            let ty = &input.ident;
            if e.variants.len() > MAX_VARIANTS {
                return Err(Error::new_spanned(
                    &input.ident,
                    "Pack takes enums of at most 128 variants",
                ));
            }
            let mut packs = Vec::new();
            let mut unpacks = Vec::new();
            for (i, variant) in e.variants.iter().enumerate() {
                let name = &variant.ident;
                let index = i as u8;
                let (pattern, bindings) = bind(&variant.fields);
                let build = build(&variant.fields);
                packs.push(quote! {
                    Self::#name #pattern => {
                        out.push(#index);
                        #(::locksmith::world::Pack::pack(#bindings, out);)*
                    }
                });
                unpacks.push(quote!(#index => Self::#name #build,));
            }
            // `*self`: an enum without variants is matched by no arm.
            let pack = if packs.is_empty() {
                quote!(match *self {})
            } else {
                quote!(match self { #(#packs)* })
            };
            (
                pack,
                quote! {
                    match ::locksmith::world::pack::byte(input) {
                        #(#unpacks)*
                        other => ::locksmith::world::pack::bad_variant(::core::stringify!(#ty), other),
                    }
                },
                // An enum is rebuilt: its variants hold no lists to reuse
                // but through `Vec` fields, which are rare and short.
                quote!(*self = <Self as ::locksmith::world::Pack>::unpack(input);),
            )
        }
        Data::Union(u) => {
            return Err(Error::new(
                u.union_token.span,
                "#[derive(Pack)] takes a struct or an enum",
            ))
        }
    };
    crate::bound_params(&mut input.generics, quote!(::locksmith::world::Pack));
    let name = &input.ident;
    let (impl_generics, ty_generics, where_clause) = input.generics.split_for_impl();
    Ok(quote! {
        #[automatically_derived]
        impl #impl_generics ::locksmith::world::Pack for #name #ty_generics #where_clause {
            #[inline(always)]
            fn pack(&self, out: &mut ::locksmith::world::pack::Out<'_>) {
                #pack
            }
            #[inline(always)]
            fn unpack(input: &mut ::locksmith::world::pack::In<'_>) -> Self {
                #unpack
            }
            #[inline(always)]
            fn unpack_into(&mut self, input: &mut ::locksmith::world::pack::In<'_>) {
                #unpack_into
            }
        }
    })
}

/// The pattern binding every field (`{ a: __pack_0, .. }` or
/// `(__pack_0, ..)`) and the bindings, in order.
fn bind(fields: &Fields) -> (Tokens, Vec<Ident>) {
    let bindings: Vec<Ident> = (0..fields.len()).map(|i| format_ident!("__pack_{}", i)).collect();
    let pattern = match fields {
        Fields::Named(named) => {
            let names = named.named.iter().map(|f| f.ident.as_ref());
            quote!({ #(#names: #bindings),* })
        }
        Fields::Unnamed(_) => quote!((#(#bindings),*)),
        Fields::Unit => quote!(),
    };
    (pattern, bindings)
}

/// The fields read in order, as a constructor's tail.
fn build(fields: &Fields) -> Tokens {
    let read = quote!(::locksmith::world::Pack::unpack(input));
    match fields {
        Fields::Named(named) => {
            let names = named.named.iter().map(|f| f.ident.as_ref());
            quote!({ #(#names: #read),* })
        }
        Fields::Unnamed(unnamed) => {
            let reads = unnamed.unnamed.iter().map(|_| &read);
            quote!((#(#reads),*))
        }
        Fields::Unit => quote!(),
    }
}
