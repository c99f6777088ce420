from omnigibson.objects.dataset_object import DatasetObject

REGISTERED_OBJECTS = {"DatasetObject": DatasetObject}
