from django.db import models


class Thing(models.Model):
    name = models.CharField(max_length=100)
    kind = models.CharField(max_length=20)
    price = models.DecimalField(max_digits=10, decimal_places=2)
    note = models.TextField(null=True)

    class Meta:
        app_label = "djangoapp"
        ordering = ["id"]
