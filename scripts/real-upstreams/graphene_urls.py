"""graphene-django's schema and view, as its tutorial writes them: a `DjangoObjectType` with the Relay `Node`
interface, a connection with the total count (the docs' recipe), a `DjangoConnectionField`, and `GraphQLView` at
/graphql (GET for queries; no CSRF for GET)."""
import graphene
from django.urls import path
from graphene import relay
from graphene_django import DjangoConnectionField, DjangoObjectType
from graphene_django.views import GraphQLView

from djangoapp.models import Thing


class CountedConnection(graphene.Connection):
    class Meta:
        abstract = True

    total_count = graphene.Int()

    def resolve_total_count(root, info, **kwargs):
        return root.length


class ThingNode(DjangoObjectType):
    class Meta:
        model = Thing
        fields = ("name", "kind", "price", "note")
        interfaces = (relay.Node,)
        connection_class = CountedConnection


class Query(graphene.ObjectType):
    things = DjangoConnectionField(ThingNode)


schema = graphene.Schema(query=Query)

urlpatterns = [path("graphql", GraphQLView.as_view(graphiql=False))]
